import { Messages } from "@dsh/core"
import { Http, type LanguageModel, ModelRegistry } from "@dsh/llm"
import { ModelAdapterSuite } from "@dsh/llm/conformance"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { OpenAIAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { FakeOpenAIServer } from "../src/testing.ts"

// Streaming, tool-call assembly, retries, error reasons and aborts: the suite every adapter runs.
ModelAdapterSuite.modelAdapterSuite("OpenAIAdapter conformance", { adapter: OpenAIAdapter.OpenAIAdapter, startServer: FakeOpenAIServer.startFakeOpenAIServer })

const fastRetries = Effect.provideService(Http.RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

const fakeServer = (options: FakeOpenAIServer.FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeOpenAIServer.startFakeOpenAIServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string, model = "gpt-test") =>
  OpenAIAdapter.OpenAIAdapter.create(model, { env: { OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test" } })

const ask = (text: string): LanguageModel.ModelRequest => ({ messages: [Messages.userMessage(text)], tools: [] })

const bodyOf = (body: unknown) => body as WireRequest

describe("OpenAIAdapter", () => {
  it.live("sends a streaming Chat Completions request with the bearer key and no unset options", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "Hello there, world!" }] })
      const model = yield* modelFor(server.url)
      yield* model.generate(ask("hi"))
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

  it.live("maps the system prompt, assistant tool calls and tool results", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "done" }] })
      const model = yield* OpenAIAdapter.OpenAIAdapter.create("gpt-test", {
        env: { OPENAI_BASE_URL: `${server.url}/`, OPENAI_API_KEY: "sk-test" },
        maxOutputTokens: 512
      })
      yield* model.generate({
        messages: [
          Messages.systemMessage("You are terse."),
          Messages.userMessage("read a"),
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

  it.live("an in-stream rate-limit error fails the stream with RateLimited", () =>
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
      const noKey = yield* Effect.flip(OpenAIAdapter.OpenAIAdapter.create("gpt-test", { env: {} }))
      assert.strictEqual(noKey.reason, "Configuration")
      assert.strictEqual(noKey.detail, "OPENAI_API_KEY is not set")
      const noModel = yield* Effect.flip(OpenAIAdapter.OpenAIAdapter.create("", { apiKey: "sk-test" }))
      assert.strictEqual(noModel.reason, "Configuration")
    }))

  it.live("resolves through the ModelRegistry, config before env", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "via registry" }] })
      const registry = yield* ModelRegistry.ModelRegistry
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
    }).pipe(Effect.provide(ModelRegistry.provide(OpenAIAdapter.OpenAIAdapter).pipe(Layer.provideMerge(ModelRegistry.layer)))))

  it.effect("serves the bare ids agent files use: gpt-*, chatgpt-*, o1, o3, o4-*", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      for (const id of ["gpt-5", "gpt-4.1-mini", "chatgpt-4o-latest", "o1", "o3", "o3-mini", "o4-mini"]) {
        assert.strictEqual(yield* registry.canonical(id), `openai:${id}`)
      }
      for (const id of ["o2", "gemini-3-pro", "GPT-4.1", "gpt"]) {
        assert.strictEqual((yield* Effect.flip(registry.canonical(id)))._tag, "LlmError", id)
      }
      assert.strictEqual(yield* registry.canonical("openai/gpt-4.1"), "openai:gpt-4.1")
    }).pipe(Effect.provide(ModelRegistry.layerWith([OpenAIAdapter.OpenAIAdapter]) as Layer.Layer<ModelRegistry.ModelRegistry>)))
})
