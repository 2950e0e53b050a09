import { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeStreamChunk, makeChunkParser, mapFinishReason, planRequest } from "../src/internal/wire.ts"

const toWireRequest = (...args: Parameters<typeof planRequest>) => planRequest(...args).body

/** Feeds raw chunk objects through decode + parse, then ends the stream. */
const run = (chunks: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const parser = makeChunkParser()
    const out: Array<LanguageModel.StreamPart> = []
    for (const chunk of chunks) out.push(...(yield* parser.push(yield* decodeStreamChunk(chunk))))
    out.push(...parser.end())
    return out
  })

const delta = (d: unknown, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] })

describe("OpenAI wire", () => {
  it.effect("interleaved parallel tool calls are kept apart by index", () =>
    Effect.gen(function*() {
      const parts = yield* run([
        delta({ role: "assistant", content: null }),
        delta({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "Read", arguments: "" } }] }),
        delta({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "Grep", arguments: "{\"q\":" } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: "{\"path\":" } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: "\"x\"}" } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: "\"p\"}" } }] }),
        delta({}, "tool_calls"),
        { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }
      ])
      assert.deepStrictEqual(parts, [
        { type: "tool-call", call: { id: "a", name: "Read", arguments: "{\"path\":\"p\"}" } },
        { type: "tool-call", call: { id: "b", name: "Grep", arguments: "{\"q\":\"x\"}" } },
        { type: "finish", reason: "tool-calls", usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } }
      ])
    }))

  it.effect("counts prompt tokens served from OpenAI's cache", () =>
    Effect.gen(function*() {
      const parts = yield* run([
        delta({ content: "hi" }, "stop"),
        { choices: [], usage: { prompt_tokens: 100, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 80 } } }
      ])
      assert.deepStrictEqual(parts.at(-1), { type: "finish", reason: "stop", usage: { inputTokens: 100, outputTokens: 4, totalTokens: 104, cacheReadTokens: 80 } })
    }))

  it.effect("servers that omit index, ids or arguments still produce whole calls", () =>
    Effect.gen(function*() {
      const parts = yield* run([
        delta({ tool_calls: [{ id: "x1", function: { name: "List", arguments: "" } }] }),
        delta({ tool_calls: [{ id: "x2", function: { name: "Read", arguments: { path: "a" } } }] }),
        delta({ tool_calls: [{ index: 2, function: { name: "Now" } }] })
      ])
      assert.strictEqual(parts.length, 4)
      assert.deepStrictEqual(parts[0], { type: "tool-call", call: { id: "x1", name: "List", arguments: "{}" } })
      assert.deepStrictEqual(parts[1], { type: "tool-call", call: { id: "x2", name: "Read", arguments: "{\"path\":\"a\"}" } })
      const third = parts[2]
      assert.isTrue(third?.type === "tool-call" && third.call.name === "Now" && third.call.id.startsWith("call_"))
      // No finish_reason was sent: calls imply tool-calls, and no usage means zeros.
      assert.deepStrictEqual(parts[3], { type: "finish", reason: "tool-calls", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })
    }))

  it.effect("text, nulls and a length stop", () =>
    Effect.gen(function*() {
      const parts = yield* run([
        { choices: [{ index: 0, delta: { content: "a", tool_calls: null }, finish_reason: null }], usage: null },
        delta({ content: "" }),
        delta({ content: "b" }, "length")
      ])
      assert.deepStrictEqual(parts, [
        { type: "text-delta", text: "a" },
        { type: "text-delta", text: "b" },
        { type: "finish", reason: "length", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }
      ])
    }))

  it.effect("an error payload fails with a reason a caller can act on", () =>
    Effect.gen(function*() {
      const overflow = yield* Effect.flip(run([{ error: { message: "maximum context length exceeded", code: "context_length_exceeded" } }]))
      assert.strictEqual(overflow.reason, "ContextOverflow")
      const other = yield* Effect.flip(run([delta({ content: "x" }), { error: "model crashed" }]))
      assert.strictEqual(other.reason, "BadResponse")
      assert.include(other.detail, "model crashed")
      const malformed = yield* Effect.flip(run([{ choices: "nope" }]))
      assert.strictEqual(malformed.reason, "BadResponse")
    }))

  it("maps finish reasons", () => {
    assert.strictEqual(mapFinishReason("stop"), "stop")
    assert.strictEqual(mapFinishReason("tool_calls"), "tool-calls")
    assert.strictEqual(mapFinishReason("length"), "length")
    assert.strictEqual(mapFinishReason("content_filter"), "content-filter")
    assert.strictEqual(mapFinishReason("eos"), "other")
  })

  it("config maxOutputTokens wins over the request's, and thinking off is omitted", () => {
    const body = toWireRequest("m", { messages: [Messages.userMessage("x")], tools: [], maxOutputTokens: 10, thinking: "off" }, {
      maxOutputTokens: 99
    })
    assert.strictEqual(body.max_completion_tokens, 99)
    assert.notProperty(body, "reasoning_effort")
    assert.notProperty(body, "temperature")
  })
})
