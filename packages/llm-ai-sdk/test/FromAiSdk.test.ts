import { APICallError, type LanguageModelV2, type LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { Messages } from "@dsh/core"
import { Http, type LanguageModel, LlmError, ModelRegistry } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test"
import { Effect, Fiber, Stream } from "effect"
import { AiSdkAdapter, FromAiSdk } from "../src/index.ts"

const ask = (text: string): LanguageModel.ModelRequest => ({ messages: [Messages.userMessage(text)], tools: [] })
const fastRetries = Effect.provideService(Http.RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

const usageV4 = {
  inputTokens: { total: 100, noCache: 60, cacheRead: 30, cacheWrite: 10 },
  outputTokens: { total: 50, text: 20, reasoning: 30 }
}

const v4 = (parts: ReadonlyArray<LanguageModelV4StreamPart>) =>
  new MockLanguageModelV4({ provider: "mock", modelId: "m-1", doStream: { stream: convertArrayToReadableStream([...parts]) } })

const collect = (parts: Stream.Stream<LanguageModel.StreamPart, LlmError.LlmError>) => Stream.runCollect(parts)

describe("fromAiSdk over a V4 model", () => {
  it.effect("streams text, reasoning with its metadata, assembled tool calls, the finish reason and every usage count", () =>
    Effect.gen(function*() {
      const model = FromAiSdk.fromAiSdk(v4([
        { type: "stream-start", warnings: [{ type: "unsupported", feature: "temperature" }] },
        { type: "reasoning-start", id: "r", providerMetadata: { mock: { signature: "sig-1" } } },
        { type: "reasoning-delta", id: "r", delta: "think " },
        { type: "reasoning-delta", id: "r", delta: "hard" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hello " },
        { type: "text-delta", id: "t", delta: "world" },
        { type: "text-end", id: "t" },
        { type: "tool-input-start", id: "c1", toolName: "Read" },
        { type: "tool-input-delta", id: "c1", delta: "{\"path\":" },
        { type: "tool-input-delta", id: "c1", delta: "\"a.txt\"}" },
        { type: "tool-input-end", id: "c1" },
        { type: "tool-call", toolCallId: "c1", toolName: "Read", input: "{\"path\":\"a.txt\"}" },
        { type: "tool-call", toolCallId: "c2", toolName: "Glob", input: "{\"pattern\":\"*\"}" },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usageV4 }
      ]))
      const parts = yield* collect(model.stream(ask("hi")))
      assert.deepStrictEqual(parts.filter((p) => p.type === "reasoning-delta").map((p) => p.text), ["think ", "hard"])
      assert.deepStrictEqual(parts.filter((p) => p.type === "text-delta").map((p) => p.text), ["Hello ", "world"])
      assert.deepStrictEqual(parts[0], { type: "warning", message: "unsupported: temperature" })
      const finish = parts.at(-1)
      assert.deepStrictEqual(finish, {
        type: "finish",
        reason: "tool-calls",
        usage: { inputTokens: 100, outputTokens: 50, totalTokens: 150, cacheReadTokens: 30, cacheWriteTokens: 10, reasoningTokens: 30 }
      })
      assert.deepStrictEqual(parts.filter((p) => p.type === "tool-call").map((p) => p.call), [
        { id: "c1", name: "Read", arguments: "{\"path\":\"a.txt\"}" },
        { id: "c2", name: "Glob", arguments: "{\"pattern\":\"*\"}" }
      ])
      assert.deepStrictEqual(parts.find((p) => p.type === "reasoning"), {
        type: "reasoning",
        part: { type: "reasoning", text: "think hard", provider: "mock", providerMetadata: { mock: { signature: "sig-1" } } }
      })
    }))

  it.effect("collects into one response: reasoning on the message, warnings beside it", () =>
    Effect.gen(function*() {
      const model = FromAiSdk.fromAiSdk(v4([
        { type: "stream-start", warnings: [{ type: "other", message: "careful" }] },
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "hmm" },
        { type: "reasoning-end", id: "r", providerMetadata: { mock: { redacted: "x" } } },
        { type: "text-delta", id: "t", delta: "ok" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usageV4 }
      ]))
      const response = yield* model.generate(ask("hi"))
      assert.strictEqual(response.message.content, "ok")
      assert.deepStrictEqual(response.message.reasoning, [{ type: "reasoning", text: "hmm", provider: "mock", providerMetadata: { mock: { redacted: "x" } } }])
      assert.deepStrictEqual(response.warnings, ["other: careful"])
    }))

  it.effect("tool input streamed without a closing tool-call part still is a call", () =>
    Effect.gen(function*() {
      const model = FromAiSdk.fromAiSdk(v4([
        { type: "tool-input-start", id: "c9", toolName: "Bash" },
        { type: "tool-input-delta", id: "c9", delta: "{\"command\":\"ls\"}" },
        { type: "tool-input-end", id: "c9" },
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: usageV4 }
      ]))
      const response = yield* model.generate(ask("hi"))
      assert.deepStrictEqual(response.message.toolCalls, [{ id: "c9", name: "Bash", arguments: "{\"command\":\"ls\"}" }])
      assert.strictEqual(response.finishReason, "tool-calls")
    }))

  it.effect("sends the dsh conversation as the AI SDK prompt: files, own reasoning with providerOptions, tool calls and results", () =>
    Effect.gen(function*() {
      const mock = v4([{ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usageV4 }])
      const model = FromAiSdk.fromAiSdk(mock, { provider: "mine" })
      const messages: ReadonlyArray<Messages.Message> = [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: "look",
          parts: [
            { type: "text", text: "look" },
            { type: "image", mediaType: "image/png", data: "aGVsbG8=" },
            { type: "file", mediaType: "application/pdf", url: "https://example.com/a.pdf", filename: "a.pdf" }
          ]
        },
        {
          role: "assistant",
          content: "reading",
          reasoning: [
            { type: "reasoning", text: "mine", provider: "mine", providerMetadata: { anthropic: { signature: "s" } } },
            { type: "reasoning", text: "theirs", provider: "other" }
          ],
          toolCalls: [{ id: "c1", name: "Read", arguments: "{\"path\":\"a\"}" }, { id: "c2", name: "Read", arguments: "not json" }]
        },
        { role: "tool", toolCallId: "c1", name: "Read", content: "file text" },
        { role: "tool", toolCallId: "c2", name: "Read", content: "bad args", isError: true }
      ]
      yield* model.generate({
        messages,
        tools: [{ name: "Read", description: "reads", parameters: { type: "object", properties: { path: { type: "string" } } } }],
        maxOutputTokens: 99,
        temperature: 0.5,
        thinking: "high"
      })
      const call = mock.doStreamCalls[0]!
      assert.instanceOf(call.abortSignal, AbortSignal)
      assert.strictEqual(call.maxOutputTokens, 99)
      assert.strictEqual(call.temperature, 0.5)
      assert.strictEqual(call.reasoning, "high")
      assert.deepStrictEqual(call.tools, [{ type: "function", name: "Read", description: "reads", inputSchema: { type: "object", properties: { path: { type: "string" } } } }])
      assert.deepStrictEqual(call.prompt, [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "file", mediaType: "image/png", data: { type: "data", data: "aGVsbG8=" } },
            { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://example.com/a.pdf") }, filename: "a.pdf" }
          ]
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "mine", providerOptions: { anthropic: { signature: "s" } } },
            { type: "text", text: "reading" },
            { type: "tool-call", toolCallId: "c1", toolName: "Read", input: { path: "a" } },
            { type: "tool-call", toolCallId: "c2", toolName: "Read", input: "not json" }
          ]
        },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "c1", toolName: "Read", output: { type: "text", value: "file text" } },
            { type: "tool-result", toolCallId: "c2", toolName: "Read", output: { type: "error-text", value: "bad args" } }
          ]
        }
      ])
    }))

  it.effect("a provider that throws synchronously is a failed call, not a defect", () =>
    Effect.gen(function*() {
      const model = FromAiSdk.fromAiSdk(new MockLanguageModelV4({
        doStream: () => {
          throw new Error("boom\nsecond line")
        }
      }))
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.instanceOf(error, LlmError.LlmError)
      assert.strictEqual(error.reason, "BadResponse")
      assert.notInclude(error.detail, "\n")
      assert.include(error.detail, "boom second line")
    }))

  it.effect("a malformed stream part, negative usage or a stream without finish is a BadResponse", () =>
    Effect.gen(function*() {
      const malformed = yield* Effect.flip(FromAiSdk.fromAiSdk(v4([{ type: "text-delta", id: "t" } as never])).generate(ask("hi")))
      assert.strictEqual(malformed.reason, "BadResponse")
      assert.include(malformed.detail, "malformed stream part")
      const notObject = yield* Effect.flip(FromAiSdk.fromAiSdk(v4([42 as never])).generate(ask("hi")))
      assert.include(notObject.detail, "malformed stream part")
      const negative = yield* Effect.flip(FromAiSdk.fromAiSdk(v4([{
        type: "finish",
        finishReason: { unified: "stop", raw: undefined },
        usage: { ...usageV4, outputTokens: { total: -5, text: undefined, reasoning: undefined } }
      }])).generate(ask("hi")))
      assert.strictEqual(negative.reason, "BadResponse")
      assert.include(negative.detail, "invalid usage")
      const unfinished = yield* Effect.flip(FromAiSdk.fromAiSdk(v4([{ type: "text-delta", id: "t", delta: "half" }])).generate(ask("hi")))
      assert.include(unfinished.detail, "without a finish part")
    }))

  it.effect("an error part fails the call with the provider's reason and retryability", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(FromAiSdk.fromAiSdk(v4([
        { type: "text-delta", id: "t", delta: "a" },
        {
          type: "error",
          error: new APICallError({ message: "Overloaded", url: "http://x", requestBodyValues: {}, statusCode: 529, isRetryable: true })
        }
      ])).generate(ask("hi")))
      assert.strictEqual(error.reason, "ServerError")
      assert.strictEqual(error.status, 529)
      assert.strictEqual(error.retryable, true)
    }))

  it.live("retries a 429 after the provider's retry-after, then answers", () =>
    Effect.gen(function*() {
      let calls = 0
      const mock = new MockLanguageModelV4({
        doStream: async () => {
          calls++
          if (calls === 1) {
            throw new APICallError({
              message: "Too Many Requests",
              url: "http://x",
              requestBodyValues: {},
              statusCode: 429,
              responseHeaders: { "retry-after": "0.3" },
              isRetryable: true
            })
          }
          return { stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            { type: "text-delta", id: "t", delta: "done" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usageV4 }
          ]) }
        }
      })
      const started = Date.now()
      const response = yield* FromAiSdk.fromAiSdk(mock).generate(ask("hi")).pipe(fastRetries)
      assert.strictEqual(response.message.content, "done")
      assert.strictEqual(calls, 2)
      assert.isAtLeast(Date.now() - started, 280, "waited for retry-after (300 ms), not the 5 ms backoff")
    }))

  it.live("a non-retryable provider error is not retried", () =>
    Effect.gen(function*() {
      let calls = 0
      const mock = new MockLanguageModelV4({
        doStream: async () => {
          calls++
          throw new APICallError({ message: "bad key", url: "http://x", requestBodyValues: {}, statusCode: 401, isRetryable: false })
        }
      })
      const error = yield* Effect.flip(FromAiSdk.fromAiSdk(mock).generate(ask("hi")).pipe(fastRetries))
      assert.strictEqual(error.reason, "Authentication")
      assert.strictEqual(calls, 1)
    }))

  it.live("interrupting a stream that never ends aborts the signal given to doStream", () =>
    Effect.gen(function*() {
      let signal: AbortSignal | undefined
      const mock = new MockLanguageModelV4({
        doStream: async (options) => {
          signal = options.abortSignal
          return { stream: new ReadableStream<LanguageModelV4StreamPart>({ start: (c) => c.enqueue({ type: "text-delta", id: "t", delta: "x" }) }) }
        }
      })
      const fiber = yield* Effect.forkChild(Stream.runDrain(FromAiSdk.fromAiSdk(mock).stream(ask("hi"))))
      yield* Effect.sleep("30 millis")
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(signal?.aborted, true)
    }))

  it.live("a stream silent past the idle timeout fails with a retryable Network error instead of hanging", () =>
    Effect.gen(function*() {
      const mock = new MockLanguageModelV4({ doStream: async () => ({ stream: new ReadableStream<LanguageModelV4StreamPart>() }) })
      const error = yield* Effect.flip(FromAiSdk.fromAiSdk(mock).generate(ask("hi")).pipe(
        Effect.provideService(Http.RetryPolicy, { maxRetries: 0, baseDelay: 1, maxDelay: 1, idleTimeout: "50 millis" })
      ))
      assert.strictEqual(error.reason, "Network")
    }))
})

describe("fromAiSdk over older specs", () => {
  it.effect("V3: nested usage, { unified } finish reasons, file data as a string", () =>
    Effect.gen(function*() {
      const mock = new MockLanguageModelV3({
        provider: "v3mock",
        doStream: {
          stream: convertArrayToReadableStream([
            { type: "text-delta", id: "t", delta: "hi" },
            { type: "finish", finishReason: { unified: "length", raw: "max_tokens" }, usage: usageV4 }
          ])
        }
      })
      const response = yield* FromAiSdk.fromAiSdk(mock).generate({
        messages: [{ role: "user", content: "", parts: [{ type: "image", mediaType: "image/jpeg", data: "AAAA" }] }],
        tools: [],
        thinking: "high"
      })
      assert.strictEqual(response.finishReason, "length")
      assert.strictEqual(response.usage.reasoningTokens, 30)
      const call = mock.doStreamCalls[0]!
      assert.notProperty(call, "reasoning")
      assert.deepStrictEqual(call.prompt[0], { role: "user", content: [{ type: "file", mediaType: "image/jpeg", data: "AAAA" }] })
    }))

  it.effect("V2: flat usage with cached and reasoning tokens, string finish reasons", () =>
    Effect.gen(function*() {
      const v2: LanguageModelV2 = {
        specificationVersion: "v2",
        provider: "v2mock",
        modelId: "old",
        supportedUrls: {},
        doGenerate: () => Promise.reject(new Error("unused")),
        doStream: async () => ({
          stream: convertArrayToReadableStream([
            { type: "text-delta", id: "t", delta: "old" },
            { type: "finish", finishReason: "stop", usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14, cachedInputTokens: 6, reasoningTokens: 2 } }
          ])
        })
      }
      const response = yield* FromAiSdk.fromAiSdk(v2).generate(ask("hi"))
      assert.strictEqual(response.message.content, "old")
      assert.deepStrictEqual(response.usage, { inputTokens: 10, outputTokens: 4, totalTokens: 14, cacheReadTokens: 6, reasoningTokens: 2 })
      assert.strictEqual(FromAiSdk.fromAiSdk(v2).provider, "v2mock")
    }))

  it.effect("an object of another specification version is a Configuration error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(FromAiSdk.fromAiSdk({ specificationVersion: "v1", provider: "x", modelId: "y" } as never).generate(ask("hi")))
      assert.strictEqual(error.reason, "Configuration")
    }))
})

describe("aiSdkAdapter", () => {
  const ids: Array<string> = []
  const groq = AiSdkAdapter.aiSdkAdapter({
    name: "groq",
    provider: {
      languageModel: (id: string) => {
        ids.push(id)
        return v4([
          { type: "text-delta", id: "t", delta: `from ${id}` },
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usageV4 }
        ])
      }
    }
  })

  it.effect("resolves <name>:<model id> through a ModelRegistry", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      const model = yield* registry.resolve("groq:llama-3.3-70b")
      assert.strictEqual(model.provider, "groq")
      assert.strictEqual(model.model, "m-1")
      assert.strictEqual((yield* model.generate(ask("hi"))).message.content, "from llama-3.3-70b")
      assert.deepStrictEqual(ids, ["llama-3.3-70b"])
    }).pipe(Effect.provide(ModelRegistry.layerWith([groq]))))

  it.effect("a provider that refuses the model id is a Configuration error naming both", () =>
    Effect.gen(function*() {
      const adapter = AiSdkAdapter.aiSdkAdapter({
        name: "picky",
        provider: {
          languageModel: (id) => {
            throw Object.assign(new Error(`No such languageModel: ${id}`), { name: "AI_NoSuchModelError" })
          }
        }
      })
      const error = yield* Effect.flip(adapter.create("nope", {}))
      assert.strictEqual(error.reason, "Configuration")
      assert.strictEqual(error.provider, "picky")
      assert.include(error.detail, "nope")
    }))
})

