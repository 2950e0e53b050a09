import { ScriptedModel } from "@dsh/llm-scripted"
import { Tool } from "@dsh/tools"
import { generateText, readUIMessageStream, stepCountIs, streamText, type ToolSet, type UIMessage } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type Subagents, Tools, createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

// A real AI SDK loop (generateText / streamText) on MockLanguageModelV4 as the lead, with the
// kit's tools; the kit's children run on the scripted model of ./script.ts.
const open: Array<Subagents.Subagents> = []
const track = (k: Subagents.Subagents) => (open.push(k), k)
afterEach(async () => {
  for (const k of open.splice(0)) await k.close()
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}
const finish = (unified: "stop" | "tool-calls") => ({ type: "finish" as const, finishReason: { unified, raw: undefined }, usage })
const toolCall = (id: string, toolName: string, input: unknown) => ({ type: "tool-call" as const, toolCallId: id, toolName, input: JSON.stringify(input) })

/** A streamed lead that calls `subagent` once, then answers. */
const streamingLead = (input: unknown) =>
  new MockLanguageModelV4({
    doStream: [
      { stream: new ReadableStream({ start: (c) => (c.enqueue(toolCall("call-1", "subagent", input)), c.enqueue(finish("tool-calls")), c.close()) }) },
      {
        stream: new ReadableStream({
          start: (c) => {
            c.enqueue({ type: "text-start", id: "t" })
            c.enqueue({ type: "text-delta", id: "t", delta: "lead done" })
            c.enqueue({ type: "text-end", id: "t" })
            c.enqueue(finish("stop"))
            c.close()
          }
        })
      }
    ]
  })

/** The last value an AI SDK tool's `execute` produced (an async generator's final yield). */
const lastOf = async (output: unknown): Promise<unknown> => {
  let last: unknown
  for await (const value of output as AsyncIterable<unknown>) last = value
  return last
}

describe("kit.tools.aiSdk() subagent: progress as preliminary results", () => {
  it("streams the child's text so far and its current tool to readUIMessageStream, then its result", async () => {
    // The child writes, then calls `lookup`, which answers only once the UI has shown it running.
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const lookup = Tool.defineTool({
      name: "lookup",
      description: "looks a thing up",
      parameters: z.object({ q: z.string() }),
      execute: (p) => Effect.promise(() => gate.then(() => `found ${p.q}`))
    })
    const childModel = ScriptedModel.make({
      rules: [
        { when: { step: 0 }, reply: { text: "checking the docs", toolCalls: [{ name: "lookup", arguments: { q: "{{lastUser}}" } }] } },
        { reply: { text: "found: {{lastTool}}" } }
      ]
    })
    const k = track(await createSubagents({ model: childModel, agents: { writer: { description: "writes", instructions: "You write.", tools: ["lookup"] } }, tools: [lookup] }))
    const result = streamText({ model: streamingLead({ agent: "writer", prompt: "the API" }), tools: await k.tools.aiSdk<ToolSet>(), prompt: "go", stopWhen: stepCountIs(3) })
    const preliminary: Array<unknown> = []
    let final: unknown
    for await (const message of readUIMessageStream<UIMessage>({ stream: result.toUIMessageStream() })) {
      for (const part of message.parts) {
        if (part.type !== "tool-subagent" || part.state !== "output-available") continue
        if (part.preliminary === true) {
          preliminary.push(part.output)
          if ((part.output as { tool?: string }).tool === "lookup") release()
        } else final = part.output
      }
    }
    expect(preliminary).toContainEqual({ status: "running", handle: "writer-1", text: "checking the docs", tool: "lookup" })
    expect(final).toBe("[writer-1 · completed]\nfound: found the API")
    // The model gets only the final result.
    expect(await result.text).toBe("lead done")
  })

  it("each of two concurrent calls follows its own child, and a fast child still shows up once", async () => {
    const k = track(await createSubagents({ model, agents }))
    const tools = await k.tools.aiSdk<ToolSet>()
    const all = async (prompt: string) => {
      const values: Array<unknown> = []
      for await (const v of tools.subagent!.execute!({ agent: "researcher", prompt } as never, { toolCallId: prompt, messages: [], context: {} }) as AsyncIterable<unknown>) values.push(v)
      return values
    }
    const [a, b] = await Promise.all([all("topic A"), all("topic B")])
    for (const [values, topic] of [[a!, "topic A"], [b!, "topic B"]] as const) {
      const final = values.at(-1) as string
      const handle = /^\[(researcher-\d) · completed\]\nresearched: (.*)$/.exec(final)
      expect(handle?.[2]).toBe(topic)
      expect(values.length).toBeGreaterThan(1)
      for (const p of values.slice(0, -1)) expect(p).toMatchObject({ status: "running", handle: handle?.[1] })
    }
  })

  it("a call the kit refuses yields only its error, for the model to act on", async () => {
    const k = track(await createSubagents({ model, agents }))
    const tools = await k.tools.aiSdk<ToolSet>()
    const values: Array<unknown> = []
    for await (const v of tools.subagent!.execute!({ agent: "nobody", prompt: "hi" } as never, { toolCallId: "c", messages: [], context: {} }) as AsyncIterable<unknown>) values.push(v)
    expect(values).toHaveLength(1)
    expect(values[0]).toMatch(/^Error: unknown agent type "nobody"; available: /)
  })

  it("a call's abortSignal stops the child it started", async () => {
    const k = track(await createSubagents({ model, agents }))
    const abort = new AbortController()
    k.on("turn-start", () => abort.abort())
    const tools = await k.tools.aiSdk<ToolSet>()
    const output = tools.subagent!.execute!({ agent: "waiter", prompt: "wait" } as never, { toolCallId: "call-1", messages: [], abortSignal: abort.signal, context: {} })
    expect(await lastOf(output)).toMatch(/^Error: /)
    expect((await k.children()).map((c) => `${c.handle} ${c.status}`)).toEqual(["waiter-1 cancelled"])
  })

  it("resultSchema (JSON Schema): the reported JSON comes back under result, structured", async () => {
    const k = track(await createSubagents({ model, agents }))
    const resultSchema = { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] }
    const tools = await k.tools.aiSdk<ToolSet>()
    const output = tools.subagent!.execute!({ agent: "extractor", prompt: "valid person", resultSchema } as never, { toolCallId: "call-1", messages: [], context: {} })
    expect(await lastOf(output)).toMatchObject({ handle: "extractor-1", status: "completed", result: { name: "Ada", age: 36 } })
    // The plain definition says the same in text.
    const text = await k.tools.definitions()[0]!.execute({ agent: "extractor", prompt: "valid again", resultSchema })
    expect(text).toMatch(/^\[extractor-2 · completed\]\n[\s\S]*\nresult: \{"name":"Ada","age":36\}$/)
    // A resultSchema that is no JSON Schema object, or with background, is refused before a child starts.
    const subagent = k.tools.definitions()[0]!
    expect(await subagent.execute({ agent: "extractor", prompt: "valid", resultSchema: "person" })).toBe('Error: resultSchema must be a JSON Schema object (such as {"type":"object","properties":{…}}), not "person"')
    expect(await subagent.execute({ agent: "extractor", prompt: "valid", resultSchema, background: true })).toMatch(/^Error: resultSchema needs a foreground call/)
    expect((await k.children()).map((c) => c.handle)).toEqual(["extractor-1", "extractor-2"])
  })
})

describe("announcementsStep: background outcomes reach the loop before its next model call", () => {
  it("injects a background child's outcome once, as a message of the next step", async () => {
    const k = track(await createSubagents({ model, agents }))
    const lead = new MockLanguageModelV4({
      doGenerate: [
        { content: [toolCall("call-1", "subagent", { agent: "researcher", prompt: "topic B", background: true })], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
        { content: [toolCall("call-2", "list_agents", {})], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
        { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }
      ]
    })
    const result = await generateText({
      model: lead,
      tools: await k.tools.aiSdk<ToolSet>(),
      prepareStep: Tools.announcementsStep(k, { waitMs: 60_000 }),
      prompt: "start a researcher in the background",
      stopWhen: stepCountIs(4)
    })
    expect(result.text).toBe("done")
    const prompts = lead.doGenerateCalls.map((c) => JSON.stringify(c.prompt))
    const announced = "[background subagent researcher-1 (researcher) completed]\\nresearched: topic B"
    expect(prompts[0]).not.toContain(announced)
    expect(prompts[1]).toContain(announced)
    // Carried forward by the AI SDK, never injected twice.
    expect(prompts[2]!.split(announced)).toHaveLength(2)
    expect(await k.announcements()).toEqual([])
  })

  it("adds nothing when no background outcome is pending", async () => {
    const k = track(await createSubagents({ model, agents }))
    const step = Tools.announcementsStep(k)
    expect(await step({ messages: [{ role: "user", content: "hi" }] })).toEqual({})
  })
})
