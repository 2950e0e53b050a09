import { systemMessage, userMessage } from "@dsh/core"
import { type ModelRequest, ModelRegistry, RetryPolicy, type StreamPart } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { OpenAIAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { type FakeServerOptions, startFakeOpenAIServer } from "../src/testing.ts"

const fastRetries = Effect.provideService(RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

const fakeServer = (options: FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startFakeOpenAIServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string, model = "gpt-test") =>
  OpenAIAdapter.create(model, { env: { OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test" } })

const ask = (text: string): ModelRequest => ({ messages: [userMessage(text)], tools: [] })

const bodyOf = (body: unknown) => body as WireRequest

describe("OpenAIAdapter", () => {
  it.live("streams text in several deltas", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "Hello there, world!" }] })
      const model = yield* modelFor(server.url)
      const parts = yield* Stream.runCollect(model.stream(ask("hi")))
      const deltas = parts.filter((p) => p.type === "text-delta")
      assert.isAbove(deltas.length, 1)
      assert.strictEqual(deltas.map((p) => p.text).join(""), "Hello there, world!")
      assert.deepStrictEqual(parts.at(-1), { type: "finish", reason: "stop", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })
      const body = bodyOf(server.requests[0]?.body)
      assert.strictEqual(server.requests[0]?.path, "/v1/chat/completions")
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-test")
      assert.strictEqual(body.model, "gpt-test")
      assert.strictEqual(body.stream, true)
      assert.deepStrictEqual(body.stream_options, { include_usage: true })
      assert.notProperty(body, "tools")
      assert.notProperty(body, "reasoning_effort")
      assert.notProperty(body, "max_completion_tokens")
    }))

  it.live("assembles a tool call from split argument deltas", () =>
    Effect.gen(function*() {
      const args = { path: "src/index.ts", limit: 20, note: "ünïcødé ✓" }
      const server = yield* fakeServer({
        replies: [{ text: "Let me look.", toolCalls: [{ id: "call_1", name: "Read", arguments: args }, { name: "Glob", arguments: "{\"pattern\":\"*.ts\"}" }] }]
      })
      const model = yield* modelFor(server.url)
      const parts = yield* Stream.runCollect(model.stream(ask("read it")))
      const calls = parts.filter((p): p is Extract<StreamPart, { type: "tool-call" }> => p.type === "tool-call")
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[0]?.call.id, "call_1")
      assert.strictEqual(calls[0]?.call.name, "Read")
      assert.deepStrictEqual(JSON.parse(calls[0]?.call.arguments ?? ""), args)
      assert.strictEqual(calls[1]?.call.name, "Glob")
      assert.strictEqual(calls[1]?.call.arguments, "{\"pattern\":\"*.ts\"}")
      assert.deepStrictEqual(parts.at(-1), { type: "finish", reason: "tool-calls", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })
    }))

  it.live("reports usage from the final chunk", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok", usage: { input: 120, output: 7 } }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate(ask("hi"))
      assert.deepStrictEqual(response.usage, { inputTokens: 120, outputTokens: 7, totalTokens: 127 })
      assert.strictEqual(response.finishReason, "stop")
      assert.deepStrictEqual(response.message, { role: "assistant", content: "ok" })
    }))

  it.live("maps the system prompt, assistant tool calls and tool results", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "done" }] })
      const model = yield* OpenAIAdapter.create("gpt-test", {
        env: { OPENAI_BASE_URL: `${server.url}/`, OPENAI_API_KEY: "sk-test" },
        maxOutputTokens: 512
      })
      yield* model.generate({
        messages: [
          systemMessage("You are terse."),
          userMessage("read a"),
          { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "Read", arguments: "{\"path\":\"a\"}" }] },
          { role: "tool", toolCallId: "c1", name: "Read", content: "no such file", isError: true }
        ],
        tools: [{ name: "Read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }],
        thinking: "high",
        temperature: 0.2
      })
      const body = bodyOf(server.requests[0]?.body)
      assert.deepStrictEqual(body.messages, [
        { role: "system", content: "You are terse." },
        { role: "user", content: "read a" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "Read", arguments: "{\"path\":\"a\"}" } }] },
        { role: "tool", tool_call_id: "c1", content: "no such file" }
      ])
      assert.deepStrictEqual(body.tools, [{
        type: "function",
        function: { name: "Read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }
      }])
      assert.strictEqual(body.max_completion_tokens, 512)
      assert.strictEqual(body.reasoning_effort, "high")
      assert.strictEqual(body.temperature, 0.2)
    }))

  it.live("retries a 500 exactly maxRetries times, then fails with ServerError", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ respond: () => ({ status: 500 }) })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "ServerError")
      assert.strictEqual(error.status, 500)
      assert.strictEqual(server.requests.length, 3)
    }).pipe(fastRetries))

  it.live("fails a 401 with Authentication, without retrying", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        respond: () => ({ status: 401, errorBody: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } })
      })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "Authentication")
      assert.include(error.detail, "Incorrect API key")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

  it.live("recognises a context-length error", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        respond: () => ({
          status: 400,
          errorBody: {
            error: {
              message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
              type: "invalid_request_error",
              code: "context_length_exceeded"
            }
          }
        })
      })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "ContextOverflow")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

  it.live("succeeds after a 429", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ status: 429 }, { text: "finally" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate(ask("hi"))
      assert.strictEqual(response.message.content, "finally")
      assert.strictEqual(server.requests.length, 2)
    }).pipe(fastRetries))

  it.live("interrupting the stream mid-way aborts the HTTP request", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "partial answer", hang: true }] })
      const model = yield* modelFor(server.url)
      const first = yield* Deferred.make<StreamPart>()
      const fiber = yield* model.stream(ask("hi")).pipe(
        Stream.runForEach((part) => Deferred.succeed(first, part)),
        Effect.forkChild
      )
      const part = yield* Deferred.await(first)
      assert.strictEqual(part.type, "text-delta")
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAborts(1))
      assert.strictEqual(server.aborted, 1)
    }))

  it.live("interrupting before the first byte aborts the HTTP request", () =>
    Effect.gen(function*() {
      let arrived = () => {}
      const requestSeen = new Promise<void>((resolve) => (arrived = resolve))
      const server = yield* fakeServer({
        respond: () => {
          arrived()
          return { hang: true }
        }
      })
      const model = yield* modelFor(server.url)
      const fiber = yield* Effect.forkChild(model.generate(ask("hi")))
      yield* Effect.promise(() => requestSeen)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAborts(1))
      assert.strictEqual(server.aborted, 1)
    }))

  it.live("an error event mid-stream fails the stream", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        replies: [{ text: "start", streamError: { message: "Rate limit reached for requests", type: "rate_limit_exceeded" } }]
      })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "RateLimited")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

  it.effect("fails with Configuration when the key or the model is missing", () =>
    Effect.gen(function*() {
      const noKey = yield* Effect.flip(OpenAIAdapter.create("gpt-test", { env: {} }))
      assert.strictEqual(noKey.reason, "Configuration")
      assert.strictEqual(noKey.detail, "OPENAI_API_KEY is not set")
      const noModel = yield* Effect.flip(OpenAIAdapter.create("", { apiKey: "sk-test" }))
      assert.strictEqual(noModel.reason, "Configuration")
    }))

  it.live("resolves through the ModelRegistry, config before env", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "via registry" }] })
      const registry = yield* ModelRegistry
      const model = yield* registry.resolve("openai:gpt-test", {
        apiKey: "sk-config",
        baseUrl: server.url,
        env: { OPENAI_BASE_URL: "http://127.0.0.1:9/nowhere", OPENAI_API_KEY: "sk-env" }
      })
      assert.strictEqual(model.provider, "openai")
      assert.strictEqual(model.model, "gpt-test")
      const response = yield* model.generate(ask("hi"))
      assert.strictEqual(response.message.content, "via registry")
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-config")
    }).pipe(Effect.provide(ModelRegistry.provide(OpenAIAdapter).pipe(Layer.provideMerge(ModelRegistry.layer)))))
})
