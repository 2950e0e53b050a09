import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { LanguageModel, LlmError, ModelRegistry, ModelSpec } from "../src/index.ts"

describe("collectResponse", () => {
  it.effect("joins text, keeps tool calls and promotes stop to tool-calls", () =>
    Effect.gen(function*() {
      const parts: Array<LanguageModel.StreamPart> = [
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo" },
        { type: "tool-call", call: { id: "1", name: "Read", arguments: "{}" } },
        { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }
      ]
      const response = yield* LanguageModel.collectResponse(Stream.fromIterable(parts))
      assert.deepStrictEqual(response.message, {
        role: "assistant",
        content: "Hello",
        toolCalls: [{ id: "1", name: "Read", arguments: "{}" }]
      })
      assert.strictEqual(response.finishReason, "tool-calls")
      assert.strictEqual(response.usage.totalTokens, 3)
    }))

  it.effect("a stream without finish is a clean stop with empty usage", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.collectResponse(Stream.make({ type: "text-delta", text: "x" } as LanguageModel.StreamPart))
      assert.deepStrictEqual(response.message, { role: "assistant", content: "x" })
      assert.strictEqual(response.finishReason, "stop")
      assert.strictEqual(response.usage.totalTokens, 0)
    }))
})

describe("errors", () => {
  it("maps statuses and bodies to reasons", () => {
    assert.strictEqual(LlmError.reasonForStatus(401, ""), "Authentication")
    assert.strictEqual(LlmError.reasonForStatus(403, ""), "Authentication")
    assert.strictEqual(LlmError.reasonForStatus(429, ""), "RateLimited")
    assert.strictEqual(LlmError.reasonForStatus(529, ""), "ServerError")
    assert.strictEqual(LlmError.reasonForStatus(400, "{\"error\":{\"code\":\"context_length_exceeded\"}}"), "ContextOverflow")
    assert.strictEqual(LlmError.reasonForStatus(400, "prompt is too long: 201000 tokens > 200000 maximum"), "ContextOverflow")
    assert.strictEqual(LlmError.reasonForStatus(400, "the request exceeds the available context size"), "ContextOverflow")
    assert.strictEqual(LlmError.reasonForStatus(400, "unknown field"), "InvalidRequest")
    assert.isFalse(LlmError.isContextOverflowText("temperature out of range"))
  })

  it("renders a readable message", () => {
    const error = new LlmError.LlmError({ reason: "ServerError", provider: "openai", detail: "boom", status: 502, retryable: true })
    assert.strictEqual(error.message, "openai: ServerError (HTTP 502): boom")
  })
})

describe("ModelRegistry", () => {
  it("splits specs at the first colon", () => {
    assert.deepStrictEqual(ModelSpec.parseModelSpec("openai:gpt-4.1"), { adapter: "openai", model: "gpt-4.1" })
    assert.deepStrictEqual(ModelSpec.parseModelSpec("openai:ollama/qwen3:8b"), { adapter: "openai", model: "ollama/qwen3:8b" })
    assert.deepStrictEqual(ModelSpec.parseModelSpec("scripted"), { adapter: "scripted", model: "" })
  })

  it.effect("an unknown adapter is a RegistryError listing what exists; an empty spec is Configuration", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.make
      const missing = yield* Effect.flip(registry.resolve("nope:model"))
      assert.strictEqual(missing._tag, "RegistryError")
      const empty = yield* Effect.flip(registry.resolve(""))
      assert.strictEqual(empty._tag, "LlmError")
    }))
})

describe("collectResponse with reasoning and warnings", () => {
  it.effect("puts reasoning parts on the message in order, warnings on the response, and ignores reasoning deltas", () =>
    Effect.gen(function*() {
      const a = { type: "reasoning", text: "one", provider: "p", signature: "s1" } as const
      const b = { type: "reasoning", text: "", provider: "p", redactedData: "r" } as const
      const response = yield* LanguageModel.collectResponse(Stream.fromIterable<LanguageModel.StreamPart>([
        { type: "warning", message: "an image was dropped" },
        { type: "reasoning-delta", text: "one" },
        { type: "reasoning", part: a },
        { type: "reasoning", part: b },
        { type: "text-delta", text: "hi" },
        { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 1 } }
      ]))
      assert.deepStrictEqual(response.message, { role: "assistant", content: "hi", reasoning: [a, b] })
      assert.deepStrictEqual(response.warnings, ["an image was dropped"])
      const plain = yield* LanguageModel.collectResponse(Stream.fromIterable<LanguageModel.StreamPart>([{ type: "text-delta", text: "x" }]))
      assert.notProperty(plain, "warnings")
      assert.notProperty(plain.message, "reasoning")
    }))
})
