import { type FunctionTool, RunContext } from "@openai/agents"
import { generateText, stepCountIs, type ToolSet } from "ai"
import { Effect, Stream } from "effect"
import { MockLanguageModelV4 } from "ai/test"
import { afterEach, describe, expect, it } from "vitest"
import { type Subagents, createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

const open: Array<Subagents.Subagents> = []
const kit = async () => {
  const k = await createSubagents({ model, agents })
  open.push(k)
  return k
}
afterEach(async () => {
  for (const k of open.splice(0)) await k.close()
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}

describe("an AI SDK model as the kit's model", () => {
  it("runs the children through @dsh/llm-ai-sdk", async () => {
    const child = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream({
          start(c) {
            c.enqueue({ type: "text-start", id: "t" })
            c.enqueue({ type: "text-delta", id: "t", delta: "from the AI SDK model" })
            c.enqueue({ type: "text-end", id: "t" })
            c.enqueue({ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage })
            c.close()
          }
        })
      })
    })
    const k = await createSubagents({ model: child, agents })
    open.push(k)
    const result = await k.delegate({ agent: "researcher", prompt: "topic Z" })
    expect(result.text).toBe("from the AI SDK model")
    expect(child.doStreamCalls).toHaveLength(1)
    expect(JSON.stringify(child.doStreamCalls[0]?.prompt)).toContain("topic Z")
  })
})

describe("kit.tools", () => {
  it("definitions(): plain tools with JSON Schemas that delegate through the kit", async () => {
    const k = await kit()
    const tools = k.tools.definitions()
    expect(tools.map((t) => t.name)).toEqual(["subagent", "send_message", "list_agents", "wait"])
    expect(tools[0]!.inputSchema).toMatchObject({ type: "object", required: ["agent", "prompt"], properties: { agent: { enum: ["researcher", "waiter", "extractor", "stubborn", "deployer", "manager", "fork"] } } })
    expect(tools[0]!.description).toContain("\n- researcher: answers one question\n")
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(await byName.subagent!.execute({ agent: "researcher", prompt: "topic A" })).toBe("[researcher-1 · completed]\nresearched: topic A")
    expect(await byName.send_message!.execute({ to: "researcher-1", message: "and the sources?" })).toMatch(/^\[researcher-1 · completed\]\nsources: the docs/)
    expect(await byName.subagent!.execute({ agent: "researcher", prompt: "topic B", background: true })).toMatch(/^accepted researcher-2/)
    expect(await byName.wait!.execute({})).toBe("[researcher-2 · completed]\nresearched: topic B")
    expect(await byName.list_agents!.execute({})).toBe("researcher-1 (researcher) is completed\nresearcher-2 (researcher) is completed")
    // What the model must fix is a result, not a thrown error.
    expect(await byName.subagent!.execute({ agent: "nobody", prompt: "hi" })).toMatch(/^Error: unknown agent type "nobody"; available: /)
  })

  it("definitions(): the abort signal of a call stops the child", async () => {
    const k = await kit()
    const abort = new AbortController()
    k.on("turn-start", () => abort.abort())
    const subagent = k.tools.definitions()[0]!
    expect(await subagent.execute({ agent: "waiter", prompt: "wait" }, { signal: abort.signal })).toMatch(/^Error: /)
    expect((await k.children()).map((c) => `${c.handle} ${c.status}`)).toEqual(["waiter-1 cancelled"])
  })

  it("aiSdk(): the tools run inside an AI SDK generateText loop", async () => {
    const k = await kit()
    const lead = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "subagent", input: JSON.stringify({ agent: "researcher", prompt: "topic C" }) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: []
        },
        { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }
      ]
    })
    const result = await generateText({ model: lead, tools: await k.tools.aiSdk<ToolSet>(), prompt: "research topic C", stopWhen: stepCountIs(3) })
    expect(result.text).toBe("done")
    const toolResults = result.steps.flatMap((s) => s.toolResults)
    expect(toolResults.map((r) => r.output)).toEqual(["[researcher-1 · completed]\nresearched: topic C"])
    // The model saw the child's result in its second call.
    expect(JSON.stringify(lead.doGenerateCalls[1]?.prompt)).toContain("researched: topic C")
  })

  it("openaiAgents(): function tools of the OpenAI Agents SDK that delegate through the kit", async () => {
    const k = await kit()
    const tools = await k.tools.openaiAgents<Array<FunctionTool>>()
    expect(tools.map((t) => t.name)).toEqual(["subagent", "send_message", "list_agents", "wait"])
    const output = await tools[0]!.invoke(new RunContext(), JSON.stringify({ agent: "researcher", prompt: "topic D" }))
    expect(output).toBe("[researcher-1 · completed]\nresearched: topic D")
  })

  it("effectAi(): an effect/ai toolkit whose handlers delegate through the kit", async () => {
    const k = await kit()
    const { toolkit, layer } = k.tools.effectAi()
    const results = await Effect.runPromise(Effect.gen(function*() {
      const handlers = yield* toolkit
      const stream = yield* handlers.handle("subagent", { agent: "researcher", prompt: "topic E" })
      return yield* Stream.runCollect(stream)
    }).pipe(Effect.provide(layer)))
    expect(results.map((r) => r.result)).toEqual(["[researcher-1 · completed]\nresearched: topic E"])
  })
})
