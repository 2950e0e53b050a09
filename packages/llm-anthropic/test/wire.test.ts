import { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeStreamEvent, makeEventParser, mapStopReason } from "../src/internal/events.ts"
import { planRequest } from "../src/internal/wire.ts"

const toWireRequest = (...args: Parameters<typeof planRequest>) => planRequest(...args).body

const run = (events: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const parser = makeEventParser()
    const out: Array<LanguageModel.StreamPart> = []
    for (const event of events) out.push(...(yield* parser.push(yield* decodeStreamEvent(event))))
    out.push(...(yield* parser.end()))
    return out
  })

const start = { type: "message_start", message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } }

describe("Anthropic wire", () => {
  it.effect("turns thinking blocks into reasoning parts, ignores pings, counts cached input tokens", () =>
    Effect.gen(function*() {
      const parts = yield* run([
        start,
        { type: "ping" },
        { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
        { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t", name: "Now", input: {} } },
        { type: "content_block_stop", index: 1 },
        { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
        { type: "message_stop" }
      ])
      assert.deepStrictEqual(parts, [
        { type: "reasoning-delta", text: "hmm" },
        { type: "reasoning", part: { type: "reasoning", text: "hmm", provider: "anthropic", signature: "sig" } },
        { type: "tool-call", call: { id: "t", name: "Now", arguments: "{}" } },
        { type: "finish", reason: "tool-calls", usage: { inputTokens: 15, outputTokens: 9, totalTokens: 24, cacheReadTokens: 5 } }
      ])
    }))

  it.effect("a stream cut before message_stop is a BadResponse", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run([start, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }]))
      assert.strictEqual(error.reason, "BadResponse")
    }))

  it.effect("error events map to reasons", () =>
    Effect.gen(function*() {
      const reasonOf = (error: unknown) => run([start, { type: "error", error }]).pipe(Effect.flip, Effect.map((e) => e.reason))
      assert.strictEqual(yield* reasonOf({ type: "overloaded_error", message: "Overloaded" }), "ServerError")
      assert.strictEqual(yield* reasonOf({ type: "rate_limit_error", message: "slow down" }), "RateLimited")
      assert.strictEqual(yield* reasonOf({ type: "invalid_request_error", message: "prompt is too long" }), "ContextOverflow")
      assert.strictEqual(yield* reasonOf({ type: "weird_error", message: "?" }), "BadResponse")
    }))

  it("maps stop reasons", () => {
    assert.strictEqual(mapStopReason("end_turn"), "stop")
    assert.strictEqual(mapStopReason("stop_sequence"), "stop")
    assert.strictEqual(mapStopReason("tool_use"), "tool-calls")
    assert.strictEqual(mapStopReason("max_tokens"), "length")
    assert.strictEqual(mapStopReason("pause_turn"), "other")
  })

  it("thinking gets a budget below max_tokens, drops temperature, and stays off mid tool loop", () => {
    const base = { messages: [Messages.systemMessage("a"), Messages.systemMessage("b"), Messages.userMessage("x")], tools: [], temperature: 0.5 }
    const high = toWireRequest("m", { ...base, thinking: "high" }, { maxOutputTokens: 32000 })
    assert.deepStrictEqual(high.thinking, { type: "enabled", budget_tokens: 24576 })
    assert.notProperty(high, "temperature")
    assert.strictEqual(high.system, "a\n\nb")
    const clamped = toWireRequest("m", { ...base, thinking: "high", maxOutputTokens: 4096 })
    assert.deepStrictEqual(clamped.thinking, { type: "enabled", budget_tokens: 3072 })
    const tooSmall = toWireRequest("m", { ...base, thinking: "low", maxOutputTokens: 1500 })
    assert.notProperty(tooSmall, "thinking")
    assert.strictEqual(tooSmall.temperature, 0.5)
    const midLoop = toWireRequest("m", {
      messages: [
        Messages.userMessage("x"),
        { role: "assistant", content: "", toolCalls: [{ id: "t", name: "Now", arguments: "{}" }] },
        { role: "tool", toolCallId: "t", name: "Now", content: "12:00" }
      ],
      tools: [],
      thinking: "medium"
    })
    assert.notProperty(midLoop, "thinking")
    assert.deepStrictEqual(midLoop.messages[1], { role: "assistant", content: [{ type: "tool_use", id: "t", name: "Now", input: {} }] })
  })
})
