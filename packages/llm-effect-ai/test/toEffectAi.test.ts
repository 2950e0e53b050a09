import { assert, describe, it } from "@effect/vitest"
import { LanguageModel as LlmLanguageModel, ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedAdapter, ScriptedModel } from "@dsh/llm-scripted"
import { Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import { AiError, Chat, LanguageModel, Tool, Toolkit } from "effect/ai"
import { ToEffectAi } from "../src/index.ts"
import { recording, recordingModel, usage } from "./fixtures.ts"

const script: Script.Script = {
  name: "bridge",
  rules: [
    { when: { lastUser: "^echo (.*)$", step: 0 }, reply: { text: "Calling.", toolCalls: [{ name: "Echo", arguments: { text: "{{1}}" } }] } },
    { when: { lastTool: "." }, reply: { text: "The tool said: {{lastTool}}" } },
    { when: { lastUser: "^hello$" }, reply: { text: "Hi there, friend.", usage: { input: 7, output: 4 } } },
    { when: { lastUser: "^limit$" }, reply: { error: { reason: "RateLimited", detail: "slow down" } } },
    { when: { lastUser: "^event$" }, reply: { text: "{\"title\":\"Launch\",\"day\":5}" } }
  ],
  fallback: { text: "You said: {{lastUser}}; before: {{users}}" }
}

const Echo = Tool.make("Echo", {
  description: "Echoes its text",
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.String
})
const EchoKit = Toolkit.make(Echo)
const EchoHandlers = EchoKit.toLayer({ Echo: ({ text }) => Effect.succeed(`echo: ${text}`) })

describe("a dsh model as an effect/ai LanguageModel", () => {
  it.effect("generateText over the scripted model: text, finish reason and usage", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "hello" })
      assert.strictEqual(response.text, "Hi there, friend.")
      assert.strictEqual(response.finishReason, "stop")
      assert.strictEqual(response.usage.inputTokens.total, 7)
      assert.strictEqual(response.usage.outputTokens.total, 4)
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(ScriptedModel.make(script)))))

  it.effect("streamText over the scripted model: the deltas make the text, bracketed by start and end", () =>
    Effect.gen(function*() {
      const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "hello" }))
      const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")
      assert.strictEqual(text, "Hi there, friend.")
      const types = parts.map((p) => p.type)
      assert.strictEqual(types[0], "text-start")
      assert.deepStrictEqual(types.slice(-2), ["text-end", "finish"])
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(ScriptedModel.make(script)))))

  it.effect("a Chat keeps its history: the dsh model sees the system prompt and the earlier turn", () => {
    const { model, requests } = recording(ScriptedModel.make(script))
    return Effect.gen(function*() {
      const chat = yield* Chat.fromPrompt([{ role: "system", content: "Be brief." }])
      assert.strictEqual((yield* chat.generateText({ prompt: "hello" })).text, "Hi there, friend.")
      assert.strictEqual((yield* chat.generateText({ prompt: "again" })).text, "You said: again; before: hello | again")
      assert.deepStrictEqual(requests[1]?.messages, [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello" },
        { role: "assistant", content: "Hi there, friend." },
        { role: "user", content: "again" }
      ])
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(model)))
  })

  it.effect("a tool call round trip: effect/ai runs the tool, the dsh model gets the tool message", () => {
    const { model, requests } = recording(ScriptedModel.make(script))
    return Effect.gen(function*() {
      const chat = yield* Chat.empty
      const first = yield* chat.generateText({ prompt: "echo hi", toolkit: EchoKit })
      assert.strictEqual(first.finishReason, "tool-calls")
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.name, c.params]), [["Echo", { text: "hi" }]])
      assert.deepStrictEqual(first.toolResults.map((r) => r.result), ["echo: hi"])
      assert.deepStrictEqual(requests[0]?.tools.map((t) => t.name), ["Echo"])
      assert.deepStrictEqual(requests[0]?.tools[0]?.parameters.type, "object")

      const second = yield* chat.generateText({ prompt: [], toolkit: EchoKit })
      assert.strictEqual(second.text, "The tool said: echo: hi")
      const toolMessage = requests[1]?.messages.at(-1)
      assert.deepStrictEqual(toolMessage, { role: "tool", toolCallId: "call_0_0", name: "Echo", content: "echo: hi" })
      assert.deepStrictEqual(requests[1]?.messages[1], {
        role: "assistant",
        content: "Calling.",
        toolCalls: [{ id: "call_0_0", name: "Echo", arguments: "{\"text\":\"hi\"}" }]
      })
    }).pipe(Effect.provide([ToEffectAi.layerFromModel(model), EchoHandlers]))
  })

  it.effect("reasoning streams as deltas and arrives whole with its signature and metadata", () => {
    const { model } = recordingModel(() => [
      { type: "reasoning-delta", text: "Think" },
      { type: "reasoning-delta", text: "ing." },
      { type: "reasoning", part: { type: "reasoning", text: "Thinking.", provider: "anthropic", signature: "sig-1", providerMetadata: { anthropic: { block: 0 } } } },
      { type: "text-delta", text: "Done." },
      { type: "finish", reason: "stop", usage: { ...usage, reasoningTokens: 3 } }
    ])
    return Effect.gen(function*() {
      const streamed = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "think" }))
      assert.deepStrictEqual(streamed.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])), ["Think", "ing."])
      const end = streamed.find((p) => p.type === "reasoning-end")
      assert.deepStrictEqual(end?.metadata, { anthropic: { block: 0 }, dsh: { provider: "anthropic", signature: "sig-1" } })

      const response = yield* LanguageModel.generateText({ prompt: "think" })
      assert.deepStrictEqual(response.reasoning.map((r) => r.text), ["Thinking."])
      assert.strictEqual(response.text, "Done.")
      assert.strictEqual(response.usage.outputTokens.reasoning, 3)
      assert.strictEqual(response.usage.inputTokens.cacheRead, 4)
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(model)))
  })

  it.effect("an LlmError becomes the matching AiError reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: "limit" }))
      assert.isTrue(AiError.isAiError(error))
      assert.strictEqual(error.reason._tag, "RateLimitError")
      assert.isTrue(error.isRetryable)
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(ScriptedModel.make(script)))))

  it.effect("layerFromSpec resolves a dsh model spec through the ModelRegistry; generateObject works on it", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateObject({ prompt: "event", schema: Schema.Struct({ title: Schema.String, day: Schema.Number }) })
      assert.deepStrictEqual(response.value, { title: "Launch", day: 5 })
    }).pipe(Effect.provide(ToEffectAi.layerFromSpec("scripted:bridge").pipe(
      Layer.provide(ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { bridge: script } })]))
    ))))

  it.effect("a Chat gives a dsh model its own reasoning back, signature included, in later turns", () => {
    const part = { type: "reasoning" as const, text: "Plan.", provider: "anthropic", signature: "sig-2" }
    const { model, requests } = recordingModel((_, index) => [
      ...(index === 0 ? [{ type: "reasoning" as const, part }] : []),
      { type: "text-delta", text: `answer ${index}` },
      { type: "finish", reason: "stop", usage }
    ])
    return Effect.gen(function*() {
      const chat = yield* Chat.empty
      yield* Stream.runDrain(chat.streamText({ prompt: "first" }))
      yield* chat.generateText({ prompt: "second" })
      assert.deepStrictEqual(requests[1]?.messages, [
        { role: "user", content: "first" },
        { role: "assistant", content: "answer 0", reasoning: [part] },
        { role: "user", content: "second" }
      ])
    }).pipe(Effect.provide(ToEffectAi.layerFromModel(model)))
  })

  it.effect("interrupting effect/ai's stream interrupts the dsh model's", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const model = LlmLanguageModel.make({
        provider: "fake",
        model: "hang",
        stream: () =>
          Stream.fromEffect(Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never), Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))))
      })
      const fiber = yield* Effect.forkChild(Stream.runDrain(LanguageModel.streamText({ prompt: "x" })).pipe(Effect.provide(ToEffectAi.layerFromModel(model))))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted)
    }))
})
