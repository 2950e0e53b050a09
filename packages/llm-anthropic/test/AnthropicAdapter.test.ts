import { systemMessage, userMessage } from "@dsh/core"
import { type ModelRequest, ModelRegistry, RetryPolicy, type StreamPart } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { AnthropicAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { type FakeServerOptions, startFakeAnthropicServer } from "../src/testing.ts"

const fastRetries = Effect.provideService(RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

const fakeServer = (options: FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startFakeAnthropicServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string, model = "claude-test") =>
  AnthropicAdapter.create(model, { env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-test" } })

const ask = (text: string): ModelRequest => ({ messages: [userMessage(text)], tools: [] })

const bodyOf = (body: unknown) => body as WireRequest

describe("AnthropicAdapter", () => {
  it.live("streams text in several deltas", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "Hello there, world!" }] })
      const model = yield* modelFor(server.url)
      const parts = yield* Stream.runCollect(model.stream(ask("hi")))
      const deltas = parts.filter((p) => p.type === "text-delta")
      assert.isAbove(deltas.length, 1)
      assert.strictEqual(deltas.map((p) => p.text).join(""), "Hello there, world!")
      assert.strictEqual(parts.at(-1)?.type, "finish")
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

  it.live("assembles a tool call from split input_json deltas", () =>
    Effect.gen(function*() {
      const args = { path: "src/index.ts", limit: 20, note: "ünïcødé ✓" }
      const server = yield* fakeServer({
        replies: [{ text: "Let me look.", toolCalls: [{ id: "toolu_1", name: "Read", arguments: args }, { name: "Glob", arguments: "{\"pattern\":\"*.ts\"}" }] }]
      })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate(ask("read it"))
      assert.strictEqual(response.finishReason, "tool-calls")
      assert.strictEqual(response.message.content, "Let me look.")
      const calls = response.message.toolCalls ?? []
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[0]?.id, "toolu_1")
      assert.strictEqual(calls[0]?.name, "Read")
      assert.deepStrictEqual(JSON.parse(calls[0]?.arguments ?? ""), args)
      assert.strictEqual(calls[1]?.name, "Glob")
      assert.strictEqual(calls[1]?.arguments, "{\"pattern\":\"*.ts\"}")
    }))

  it.live("reports usage from message_start and message_delta", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok", usage: { input: 120, output: 7 } }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate(ask("hi"))
      assert.deepStrictEqual(response.usage, { inputTokens: 120, outputTokens: 7, totalTokens: 127 })
      assert.strictEqual(response.finishReason, "stop")
    }))

  it.live("maps the system prompt, tool use and merged tool results", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "done" }] })
      const model = yield* AnthropicAdapter.create("claude-test", {
        env: { ANTHROPIC_BASE_URL: `${server.url}/`, ANTHROPIC_API_KEY: "sk-ant-test" },
        maxOutputTokens: 4000
      })
      yield* model.generate({
        messages: [
          systemMessage("You are terse."),
          userMessage("read a and b"),
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
        respond: () => ({ status: 401, errorBody: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } })
      })
      const model = yield* modelFor(server.url)
      const error = yield* Effect.flip(model.generate(ask("hi")))
      assert.strictEqual(error.reason, "Authentication")
      assert.strictEqual(error.detail, "invalid x-api-key")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

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
      const noKey = yield* Effect.flip(AnthropicAdapter.create("claude-test", { env: { ANTHROPIC_API_KEY: "" } }))
      assert.strictEqual(noKey.reason, "Configuration")
      assert.strictEqual(noKey.detail, "ANTHROPIC_API_KEY is not set")
      const noModel = yield* Effect.flip(AnthropicAdapter.create(" ", { apiKey: "k" }))
      assert.strictEqual(noModel.reason, "Configuration")
    }))

  it.live("resolves through the ModelRegistry", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "via registry" }] })
      const registry = yield* ModelRegistry
      const model = yield* registry.resolve("anthropic:claude-test", { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "k" } })
      assert.strictEqual(model.provider, "anthropic")
      const response = yield* model.generate(ask("hi"))
      assert.strictEqual(response.message.content, "via registry")
    }).pipe(Effect.provide(ModelRegistry.provide(AnthropicAdapter).pipe(Layer.provideMerge(ModelRegistry.layer)))))
})
