import { Messages } from "@dsh/core"
import { Http, type LanguageModel, ModelRegistry } from "@dsh/llm"
import { ModelAdapterSuite } from "@dsh/llm/conformance"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { AnthropicAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { FakeAnthropicServer } from "../src/testing.ts"

// Streaming, tool-call assembly, retries, error reasons and aborts: the suite every adapter runs.
ModelAdapterSuite.modelAdapterSuite("AnthropicAdapter conformance", { adapter: AnthropicAdapter.AnthropicAdapter, startServer: FakeAnthropicServer.startFakeAnthropicServer })

const fastRetries = Effect.provideService(Http.RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

const fakeServer = (options: FakeAnthropicServer.FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeAnthropicServer.startFakeAnthropicServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string, model = "claude-test") =>
  AnthropicAdapter.AnthropicAdapter.create(model, { env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-test" } })

const ask = (text: string): LanguageModel.ModelRequest => ({ messages: [Messages.userMessage(text)], tools: [] })

const bodyOf = (body: unknown) => body as WireRequest

describe("AnthropicAdapter", () => {
  it.live("sends a streaming Messages request with the key, the API version and the default max_tokens", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "Hello there, world!" }] })
      const model = yield* modelFor(server.url)
      yield* model.generate(ask("hi"))
      const request = server.requests[0]
      assert.strictEqual(request?.path, "/v1/messages")
      assert.strictEqual(request?.headers["x-api-key"], "sk-ant-test")
      assert.strictEqual(request?.headers["anthropic-version"], "2023-06-01")
      const body = bodyOf(request?.body)
      assert.strictEqual(body.model, "claude-test")
      assert.strictEqual(body.stream, true)
      assert.strictEqual(body.max_tokens, 8192)
      assert.notProperty(body, "system")
      assert.notProperty(body, "tools")
      assert.notProperty(body, "thinking")
    }))

  it.live("maps the system prompt, tool use and merged tool results", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "done" }] })
      const model = yield* AnthropicAdapter.AnthropicAdapter.create("claude-test", {
        env: { ANTHROPIC_BASE_URL: `${server.url}/`, ANTHROPIC_API_KEY: "sk-ant-test" },
        maxOutputTokens: 4000
      })
      yield* model.generate({
        messages: [
          Messages.systemMessage("You are terse."),
          Messages.userMessage("read a and b"),
          {
            role: "assistant",
            content: "Reading.",
            toolCalls: [
              { id: "t1", name: "Read", arguments: "{\"path\":\"a\"}" },
              { id: "t2", name: "Read", arguments: "{not json" }
            ]
          },
          { role: "tool", toolCallId: "t1", name: "Read", content: "A" },
          { role: "tool", toolCallId: "t2", name: "Read", content: "bad arguments", isError: true }
        ],
        tools: [{ name: "Read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }],
        temperature: 0.3,
        maxOutputTokens: 100
      })
      const body = bodyOf(server.requests[0]?.body)
      assert.strictEqual(body.system, "You are terse.")
      assert.strictEqual(body.max_tokens, 4000)
      assert.strictEqual(body.temperature, 0.3)
      assert.deepStrictEqual(body.messages, [
        { role: "user", content: "read a and b" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "t1", name: "Read", input: { path: "a" } },
            { type: "tool_use", id: "t2", name: "Read", input: {} }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "A" },
            { type: "tool_result", tool_use_id: "t2", content: "bad arguments", is_error: true }
          ]
        }
      ])
      assert.deepStrictEqual(body.tools, [{
        name: "Read",
        description: "Read a file",
        input_schema: { type: "object", properties: { path: { type: "string" } } }
      }])
    }))

  it.live("recognises a prompt-too-long error", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        respond: () => ({
          status: 400,
          errorBody: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } }
        })
      })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "ContextOverflow")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

  it.live("an overloaded error event mid-stream fails with ServerError", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "start", streamError: { type: "overloaded_error", message: "Overloaded" } }] })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "ServerError")
      assert.include(error.detail, "Overloaded")
      assert.strictEqual(server.requests.length, 1) // mid-stream failures are not retried
    }).pipe(fastRetries))

  it.effect("fails with Configuration when the key or the model is missing", () =>
    Effect.gen(function*() {
      const noKey = yield* Effect.flip(AnthropicAdapter.AnthropicAdapter.create("claude-test", { env: { ANTHROPIC_API_KEY: "" } }))
      assert.strictEqual(noKey.reason, "Configuration")
      assert.strictEqual(noKey.detail, "ANTHROPIC_API_KEY is not set")
      const noModel = yield* Effect.flip(AnthropicAdapter.AnthropicAdapter.create(" ", { apiKey: "k" }))
      assert.strictEqual(noModel.reason, "Configuration")
    }))

  it.effect("ships Claude Code's aliases and serves claude-* ids; a registry's own aliases win", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      assert.strictEqual(yield* registry.canonical("sonnet"), "anthropic:claude-sonnet-4-5")
      assert.strictEqual(yield* registry.canonical("haiku"), "anthropic:claude-haiku-4-5")
      assert.strictEqual(yield* registry.canonical("opus"), "anthropic:claude-opus-4-5")
      assert.strictEqual(yield* registry.canonical("claude-sonnet-4-20250514"), "anthropic:claude-sonnet-4-20250514")
      assert.strictEqual(yield* registry.canonical("anthropic/claude-haiku-4-5"), "anthropic:claude-haiku-4-5")
      const mine = yield* ModelRegistry.makeWith({ aliases: { opus: "anthropic:claude-opus-4-1" } })
      yield* mine.adapters.registerPermanent(AnthropicAdapter.AnthropicAdapter.name, AnthropicAdapter.AnthropicAdapter)
      assert.strictEqual(yield* mine.canonical("opus"), "anthropic:claude-opus-4-1")
    }).pipe(Effect.provide(ModelRegistry.layerWith([AnthropicAdapter.AnthropicAdapter]) as Layer.Layer<ModelRegistry.ModelRegistry>)))
})
