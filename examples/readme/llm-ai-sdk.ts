import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { Messages } from "@dsh/core"
import { FromAiSdk } from "@dsh/llm-ai-sdk"
import { Effect } from "effect"

// Any AI SDK model works (createGroq()("llama-3.3-70b"), …); a hand-made V4 one needs no network.
const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } }
const parts: Array<LanguageModelV4StreamPart> = [{ type: "text-delta", id: "t", delta: "hello from the AI SDK" }, { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }]
const model: LanguageModelV4 = {
  specificationVersion: "v4", provider: "demo", modelId: "demo-1", supportedUrls: {},
  doGenerate: () => Promise.reject(new Error("stream only")),
  doStream: async () => ({ stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) })
}
const answer = await Effect.runPromise(FromAiSdk.fromAiSdk(model).generate({ messages: [Messages.userMessage("hi")], tools: [] }))
console.log(answer.message.content, `(${answer.finishReason}, ${answer.usage.totalTokens} tokens)`)
