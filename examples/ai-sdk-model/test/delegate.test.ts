import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { expect, it } from "vitest"
import { delegate } from "../src/delegate.ts"

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}
const finish = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({ type: "finish", finishReason: { unified, raw: undefined }, usage })

/** The same conversation as src/main.ts, played by the AI SDK's own mock model instead of a server. */
const reply = (options: LanguageModelV4CallOptions): Array<LanguageModelV4StreamPart> => {
  const system = options.prompt.find((m) => m.role === "system")?.content ?? ""
  if (system.includes("You research")) return [{ type: "text-delta", id: "t", delta: "The answer is 42." }, finish("stop")]
  if (options.prompt.some((m) => m.role === "tool")) return [{ type: "text-delta", id: "t", delta: "My researcher says: the answer is 42." }, finish("stop")]
  const input = JSON.stringify({ description: "find the answer", prompt: "What is the answer?", agent: "researcher" })
  return [{ type: "tool-call", toolCallId: "call-1", toolName: "subagent", input }, finish("tool-calls")]
}

it("the main agent and its in-process child run on MockLanguageModelV4", async () => {
  const mock = new MockLanguageModelV4({ doStream: async (options) => ({ stream: convertArrayToReadableStream(reply(options)) }) })
  const result = await delegate({ languageModel: () => mock }, "What is the answer?")
  expect(result).toBe("My researcher says: the answer is 42.")
  // Main agent twice (delegate, then answer) and the child once; each call had an abort signal.
  expect(mock.doStreamCalls).toHaveLength(3)
  expect(mock.doStreamCalls.every((c) => c.abortSignal instanceof AbortSignal)).toBe(true)
  // The child's result went back to the main agent as an AI SDK tool result.
  const last = mock.doStreamCalls[2]!.prompt.find((m) => m.role === "tool")
  expect(JSON.stringify(last)).toContain("The answer is 42.")
})
