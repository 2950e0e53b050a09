import { assert, describe, it } from "@effect/vitest"
import { TurnLoop } from "@dsh/agent"
import type { Messages } from "@dsh/core"
import { type LanguageModel as LlmLanguageModel, ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedModel } from "@dsh/llm-scripted"
import type { Toolbox } from "@dsh/tools"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { AiError, LanguageModel, Model, type Prompt, type Response } from "effect/ai"
import { FromEffectAi, ToEffectAi } from "../src/index.ts"
import { recordingModel, usage } from "./fixtures.ts"

/** A dsh toolbox with one tool, `Echo`, that answers `echo: <text>`. */
const echoToolbox: Toolbox.Toolbox = {
  names: ["Echo"],
  specs: [{ name: "Echo", description: "Echoes its text", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }],
  execute: (call: Messages.ToolCall) =>
    Effect.sync(() => ({
      role: "tool" as const,
      toolCallId: call.id,
      name: call.name,
      content: `echo: ${(JSON.parse(call.arguments) as { text: string }).text}`
    }))
}

const turn = (model: Parameters<typeof TurnLoop.runTurn>[0]["model"], prompt: string) =>
  TurnLoop.runTurn({
    agent: "main",
    cwd: "/",
    model,
    systemPrompt: "You are a test.",
    toolbox: Effect.succeed(echoToolbox),
    history: [],
    prompt,
    turn: 1,
    onEvent: () => Effect.void
  })

const script: Script.Script = {
  rules: [
    { when: { lastUser: "^echo (.*)$", step: 0 }, reply: { text: "Calling.", toolCalls: [{ name: "Echo", arguments: { text: "{{1}}" } }] } },
    { when: { lastTool: "." }, reply: { text: "The tool said: {{lastTool}}" } }
  ]
}

const finishUsage = { inputTokens: { total: 12, cacheRead: 2 }, outputTokens: { total: 6, reasoning: 2 } }

/** An effect/ai provider written with effect/ai's own constructor: a tool call first, then text once the result is back. */
const fakeProvider = (prompts: Array<Prompt.Prompt>) =>
  LanguageModel.make({
    generateText: () => Effect.succeed([]),
    streamText: (options) => {
      prompts.push(options.prompt)
      const last = options.prompt.content.at(-1)
      const parts: Array<Response.StreamPartEncoded> = last?.role === "tool"
        ? [
          { type: "reasoning-start", id: "r", metadata: { acme: { signature: "sig-9" } } },
          { type: "reasoning-delta", id: "r", delta: "The result is in." },
          { type: "reasoning-end", id: "r" },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Done: " },
          { type: "text-delta", id: "t", delta: JSON.stringify(last.content[0]?.type === "tool-result" ? last.content[0].result : null) },
          { type: "text-end", id: "t" },
          { type: "finish", reason: "stop", usage: finishUsage }
        ]
        : [
          // The arguments stream as raw text with a space the parsed params would lose.
          { type: "tool-params-start", id: "c1", name: "Echo" },
          { type: "tool-params-delta", id: "c1", delta: "{\"text\":" },
          { type: "tool-params-delta", id: "c1", delta: " \"hi\"}" },
          { type: "tool-params-end", id: "c1" },
          { type: "tool-call", id: "c1", name: "Echo", params: { text: "hi" } },
          { type: "finish", reason: "tool-calls", usage: finishUsage }
        ]
      return Stream.fromIterable(parts)
    }
  })

describe("an effect/ai LanguageModel as a dsh model", () => {
  it.effect("toEffectAi(scripted) and back drives dsh's turn loop through a tool call", () =>
    Effect.gen(function*() {
      const model = FromEffectAi.fromEffectAi(yield* ToEffectAi.toEffectAi(ScriptedModel.make(script)), { provider: "bridge", model: "scripted" })
      const result = yield* turn(model, "echo hi")
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(result.result, "The tool said: echo: hi")
      assert.deepStrictEqual(result.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"])
    }))

  it.effect("a provider built with LanguageModel.make drives the turn loop; raw arguments, reasoning and usage come through", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const model = FromEffectAi.fromEffectAi(yield* fakeProvider(prompts), { provider: "acme", model: "acme-1" })
      const result = yield* turn(model, "echo hi")
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(result.result, "Done: \"echo: hi\"")
      const call = result.messages[1]
      assert.deepStrictEqual(call?.role === "assistant" ? call.toolCalls : undefined, [{ id: "c1", name: "Echo", arguments: "{\"text\": \"hi\"}" }])
      // The provider saw dsh's system prompt, the tool result, and the tool as a JSON Schema.
      assert.strictEqual(prompts[1]?.content[0]?.role, "system")
      assert.strictEqual(prompts[1]?.content.at(-1)?.role, "tool")

      const response = yield* model.generate({ messages: [{ role: "user", content: "x" }, ...result.messages.slice(1, 3)], tools: echoToolbox.specs })
      assert.deepStrictEqual(response.message.reasoning, [
        { type: "reasoning", text: "The result is in.", provider: "acme", signature: "sig-9", providerMetadata: { acme: { signature: "sig-9" } } }
      ])
      assert.deepStrictEqual(response.usage, { inputTokens: 12, outputTokens: 6, totalTokens: 18, cacheReadTokens: 2, reasoningTokens: 2 })
    }))

  it.effect("reasoning, images, files and tool messages survive dsh → effect/ai → dsh", () =>
    Effect.gen(function*() {
      const reasoning = { type: "reasoning" as const, text: "Look at it.", provider: "anthropic", signature: "sig-1", redactedData: "xyz", providerMetadata: { anthropic: { block: 0 } } }
      const { model: inner, requests } = recordingModel((): ReadonlyArray<LlmLanguageModel.StreamPart> => [
        { type: "reasoning-delta", text: "Look " },
        { type: "reasoning-delta", text: "at it." },
        { type: "reasoning", part: reasoning },
        { type: "text-delta", text: "A red dot." },
        { type: "finish", reason: "stop", usage }
      ])
      const messages: ReadonlyArray<Messages.Message> = [
        { role: "system", content: "Describe images." },
        {
          role: "user",
          content: "What is this? And this?",
          parts: [
            { type: "text", text: "What is this?" },
            { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
            { type: "text", text: " And this?" },
            { type: "image", mediaType: "image/jpeg", url: "https://example.com/a.jpg" },
            { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "a.pdf" }
          ]
        },
        { role: "assistant", content: "Earlier.", reasoning: [reasoning] },
        // Malformed arguments and an error result cross unchanged too.
        { role: "assistant", content: "", toolCalls: [{ id: "c9", name: "Echo", arguments: "{not json" }] },
        { role: "tool", toolCallId: "c9", name: "Echo", content: "invalid arguments", isError: true },
        { role: "tool", toolCallId: "c10", name: "Shot", content: "A screenshot:", parts: [{ type: "text", text: "A screenshot:" }, { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }] },
        { role: "user", content: "Again." }
      ]
      const back = FromEffectAi.fromEffectAi(yield* ToEffectAi.toEffectAi(inner), { provider: "bridge", model: "fake-1" })
      const response = yield* back.generate({ messages, tools: [] })
      assert.deepStrictEqual(requests[0]?.messages, messages)
      assert.deepStrictEqual(response.message, { role: "assistant", content: "A red dot.", reasoning: [reasoning] })
      assert.deepStrictEqual(response.usage, usage)

      const deltas = yield* Stream.runCollect(back.stream({ messages, tools: [] }))
      assert.deepStrictEqual(deltas.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : [])), ["Look ", "at it."])
    }))

  it.effect("AiError reasons map to LlmError reasons with effect/ai's retryability", () =>
    Effect.gen(function*() {
      const failing = (reason: AiError.AiErrorReason) =>
        LanguageModel.make({
          generateText: () => Effect.succeed([]),
          streamText: () => Stream.fail(AiError.make({ module: "Acme", method: "streamText", reason }))
        }).pipe(Effect.map((service) => FromEffectAi.fromEffectAi(service, { provider: "acme", model: "acme-1" })))
      const errorOf = (reason: AiError.AiErrorReason) =>
        failing(reason).pipe(Effect.flatMap((m) => Effect.flip(m.generate({ messages: [{ role: "user", content: "x" }], tools: [] }))))

      const limited = yield* errorOf(new AiError.RateLimitError({}))
      assert.deepStrictEqual([limited.reason, limited.retryable, limited.provider], ["RateLimited", true, "acme"])
      const quota = yield* errorOf(new AiError.QuotaExhaustedError({}))
      assert.deepStrictEqual([quota.reason, quota.retryable], ["RateLimited", false])
      const overflow = yield* errorOf(new AiError.InvalidRequestError({ description: "maximum context length is 8192 tokens" }))
      assert.deepStrictEqual([overflow.reason, overflow.retryable], ["ContextOverflow", false])
      const auth = yield* errorOf(new AiError.AuthenticationError({ kind: "InvalidKey" }))
      assert.strictEqual(auth.reason, "Authentication")
      const server = yield* errorOf(new AiError.InternalProviderError({ description: "boom", http: { response: { status: 503, headers: {} } } }))
      assert.deepStrictEqual([server.reason, server.retryable, server.status], ["ServerError", true, 503])
      const network = yield* errorOf(new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "https://acme" }))
      assert.deepStrictEqual([network.reason, network.retryable], ["Network", true])
    }))

  it.effect("a dsh LlmError survives the round trip through effect/ai", () =>
    Effect.gen(function*() {
      const scripted = ScriptedModel.make({ rules: [], fallback: { error: { reason: "Authentication", detail: "bad key" } } })
      const back = FromEffectAi.fromEffectAi(yield* ToEffectAi.toEffectAi(scripted), { provider: "bridge", model: "scripted" })
      const error = yield* Effect.flip(back.generate({ messages: [{ role: "user", content: "x" }], tools: [] }))
      assert.deepStrictEqual([error.reason, error.retryable], ["Authentication", false])
      assert.include(error.detail, "bad key")
    }))

  it.effect("interrupting the dsh stream interrupts the effect/ai stream", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const service = yield* LanguageModel.make({
        generateText: () => Effect.succeed([]),
        streamText: () =>
          Stream.fromEffect(Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never), Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))))
      })
      const model = FromEffectAi.fromEffectAi(service, { provider: "acme", model: "acme-1" })
      const fiber = yield* Effect.forkChild(Stream.runDrain(model.stream({ messages: [{ role: "user", content: "x" }], tools: [] })))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted)
    }))

  const ids: Array<string> = []
  const acme = FromEffectAi.effectAiAdapter({
    name: "acme",
    // An effect/ai `Model` (a layer that also names its provider and model) fits as it is.
    layer: (modelId) => {
      ids.push(modelId)
      return Model.make("acme", modelId, Layer.effect(LanguageModel.LanguageModel, fakeProvider([])))
    }
  })

  it.effect("effectAiAdapter registers effect/ai models in the ModelRegistry as <name>:<model id>", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      const model = yield* registry.resolve("acme:acme-large")
      assert.deepStrictEqual([model.provider, model.model], ["acme", "acme-large"])
      const response = yield* model.generate({ messages: [{ role: "user", content: "echo hi" }], tools: echoToolbox.specs })
      assert.deepStrictEqual(response.message.toolCalls?.map((c) => c.name), ["Echo"])
      // The layer is chosen by the model id and built for the call.
      assert.deepStrictEqual(ids, ["acme-large"])
      // A call to a tool dsh did not offer still reaches dsh, which tells the model it does not exist.
      const unoffered = yield* model.generate({ messages: [{ role: "user", content: "echo hi" }], tools: [] })
      assert.deepStrictEqual(unoffered.message.toolCalls?.map((c) => c.arguments), ["{\"text\": \"hi\"}"])
    }).pipe(Effect.provide(ModelRegistry.layerWith([acme]))))

  it.effect("what cannot cross becomes a dsh warning: a media part without data or URL, a generated file", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const service = yield* LanguageModel.make({
        generateText: () => Effect.succeed([]),
        streamText: (options) => {
          prompts.push(options.prompt)
          return Stream.make(
            { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Here." },
            { type: "text-end", id: "t" },
            { type: "finish", reason: "stop", usage: finishUsage }
          )
        }
      })
      const model = FromEffectAi.fromEffectAi(service, { provider: "acme", model: "acme-1" })
      const response = yield* model.generate({
        messages: [{ role: "user", content: "draw", parts: [{ type: "text", text: "draw" }, { type: "image", mediaType: "image/png", url: "not a url" }] }],
        tools: []
      })
      assert.strictEqual(response.message.content, "Here.")
      assert.deepStrictEqual(response.warnings, [
        "acme: left out an image part (image/png) with neither inline data nor a valid URL",
        "acme: dropped a generated image/png file (dsh assistant messages carry no files)"
      ])
      const user = prompts[0]?.content[0]
      assert.deepStrictEqual(user?.role === "user" ? user.content.map((p) => p.type) : [], ["text"])
    }))
})
