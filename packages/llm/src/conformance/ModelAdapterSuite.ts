/**
 * The behaviour every HTTP model adapter must show, written once and run against each
 * adapter over its vendor's fake server: streaming, tool-call assembly, retries, error
 * reasons and aborts.
 */
import { Messages } from "@dsh/core"
import { effectTests } from "@dsh/core/testing"
import { assert, describe, it } from "vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { RetryPolicy } from "../Http.ts"
import type { ModelRequest, StreamPart } from "../LanguageModel.ts"
import { LlmError } from "../LlmError.ts"
import { type ModelAdapter, type ModelConfig, ModelRegistry, provide as modelRegistryProvide, layer as modelRegistryLayer } from "../ModelRegistry.ts"
import type { FakeReply, FakeServer, FakeServerOptions } from "../testing/FakeSseServer.ts"

const test = effectTests(it)

/** What the suite needs to know about one adapter. */
export interface ModelAdapterFixture {
  /** The adapter under test, e.g. `OpenAIAdapter`. */
  readonly adapter: ModelAdapter
  /**
   * Starts the fake that speaks the adapter's wire format, e.g. `startFakeOpenAIServer`: the
   * suite scripts replies (text, tool calls, usage, error statuses, in-stream errors, dropped
   * connections, hangs) as `FakeReply`s and the fake renders them in the vendor's bytes.
   */
  readonly startServer: (options: FakeServerOptions) => Promise<FakeServer>
  /**
   * The config that points the adapter at a running fake (`url` is `FakeServer.url`).
   * Default `{ baseUrl: url, apiKey: "sk-test" }`.
   */
  readonly config?: ((url: string) => ModelConfig) | undefined
  /** The model name the suite asks for. Default `"test-model"`. */
  readonly model?: string | undefined
}

type ToolCallPart = Extract<StreamPart, { type: "tool-call" }>

const ask = (text: string): ModelRequest => ({ messages: [Messages.userMessage(text)], tools: [] })

const zeroUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/** Two retries, milliseconds apart: the suite checks the policy is honoured, not its timing. */
const fastRetries = Effect.provideService(RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

/** What every group of the suite's tests shares: the adapter's fake and a model pointed at it. */
const suiteContext = (fixture: ModelAdapterFixture) => {
  const model = fixture.model ?? "test-model"
  const configFor = fixture.config ?? ((url: string): ModelConfig => ({ baseUrl: url, apiKey: "sk-test" }))

  const fakeServer = (options: FakeServerOptions) =>
    Effect.acquireRelease(
      Effect.promise(() => fixture.startServer(options)),
      (server) => Effect.promise(() => server.close())
    )

  /** Waits until the fake saw the client abandon a response; a missing abort fails the test instead of hanging it. */
  const awaitAbort = (server: FakeServer) =>
    Effect.promise(() => server.waitForAborts(1)).pipe(Effect.timeoutOrElse({
      duration: "3 seconds",
      orElse: () => Effect.sync(() => assert.fail("the server saw no abort within 3 seconds: interrupting did not abort the HTTP request"))
    }))

  /** A fake with this script and a model pointed at it. */
  const setup = (options: FakeServerOptions) =>
    Effect.gen(function*() {
      const server = yield* fakeServer(options)
      const lm = yield* fixture.adapter.create(model, configFor(server.url))
      return { server, lm }
    })

  /** A fake that gives every request this reply, and the error one `generate` against it ends in. */
  const failEveryTime = (reply: FakeReply) =>
    Effect.gen(function*() {
      const { lm, server } = yield* setup({ respond: () => reply })
      const error = yield* Effect.flip(lm.generate(ask("hi")))
      return { error, server }
    })

  /** A fake that first fails with `failure`, then answers `text`, and the response of one `generate`. */
  const answerAfter = (failure: FakeReply, text: string) =>
    Effect.gen(function*() {
      const { lm, server } = yield* setup({ replies: [failure, { text }] })
      const response = yield* lm.generate(ask("hi"))
      return { response, server }
    })

  return { fixture, model, configFor, fakeServer, awaitAbort, setup, failEveryTime, answerAfter }
}

type SuiteContext = ReturnType<typeof suiteContext>

/** Streaming, tool-call assembly and usage: what a successful answer looks like. */
const answerTests = ({ setup }: SuiteContext): void => {
  test.live("streams text in several deltas and finishes with stop", () =>
    Effect.gen(function*() {
      const { lm, server } = yield* setup({ replies: [{ text: "Hello there, world!" }] })
      const parts = yield* Stream.runCollect(lm.stream(ask("hi")))
      const deltas = parts.filter((p) => p.type === "text-delta")
      assert.isAbove(deltas.length, 1, "the fake streams the text in several pieces; each should be its own text-delta")
      assert.strictEqual(deltas.map((p) => p.text).join(""), "Hello there, world!", "the deltas join to the whole text")
      assert.deepStrictEqual(
        parts.at(-1),
        { type: "finish", reason: "stop", usage: zeroUsage },
        "the last part is one finish with reason stop (usage zero when the server reports none)"
      )
      assert.strictEqual(parts.filter((p) => p.type === "finish").length, 1, "exactly one finish part")
      assert.strictEqual(server.requests.length, 1, "one request for one answer")
    }))

  test.live("assembles tool calls whose arguments arrive split across deltas", () =>
    Effect.gen(function*() {
      const args = { path: "src/index.ts", limit: 20, note: "ünïcødé ✓" }
      const reply = {
        text: "Let me look.",
        toolCalls: [{ id: "call_1", name: "Read", arguments: args }, { name: "Glob", arguments: "{\"pattern\":\"*.ts\"}" }]
      }
      const { lm } = yield* setup({ replies: [reply, reply] })
      const parts = yield* Stream.runCollect(lm.stream(ask("read it")))
      const calls = parts.filter((p): p is ToolCallPart => p.type === "tool-call").map((p) => p.call)
      assert.strictEqual(calls.length, 2, "each scripted call arrives as one whole tool-call part")
      assert.strictEqual(calls[0]?.id, "call_1", "the first call keeps the id the server sent")
      assert.strictEqual(calls[0]?.name, "Read", "the first call's name")
      assert.deepStrictEqual(JSON.parse(calls[0]?.arguments ?? ""), args, "the split argument pieces join to the whole JSON, multi-byte text included")
      assert.strictEqual(calls[1]?.name, "Glob", "the second call's name")
      assert.isNotEmpty(calls[1]?.id ?? "", "the second call has the server's id")
      assert.strictEqual(calls[1]?.arguments, "{\"pattern\":\"*.ts\"}", "the second call's arguments, verbatim")
      assert.deepStrictEqual(
        parts.at(-1),
        { type: "finish", reason: "tool-calls", usage: zeroUsage },
        "a turn that ends in tool calls finishes with reason tool-calls"
      )

      const response = yield* lm.generate(ask("read it"))
      assert.strictEqual(response.finishReason, "tool-calls", "generate reports finishReason tool-calls")
      assert.strictEqual(response.message.content, "Let me look.", "generate joins the text before the calls")
      const nameAndArguments = (c: { readonly name: string; readonly arguments: string }) => [c.name, c.arguments]
      assert.deepStrictEqual(
        (response.message.toolCalls ?? []).map(nameAndArguments),
        calls.map(nameAndArguments),
        "generate returns the same calls as the stream"
      )
      assert.strictEqual(response.message.toolCalls?.[0]?.id, "call_1", "generate keeps the ids the server sent")
    }))

  test.live("reports the usage the server sends", () =>
    Effect.gen(function*() {
      const { lm } = yield* setup({ replies: [{ text: "ok", usage: { input: 120, output: 7 } }] })
      const response = yield* lm.generate(ask("hi"))
      assert.deepStrictEqual(response.usage, { inputTokens: 120, outputTokens: 7, totalTokens: 127 }, "input, output and their total")
      assert.strictEqual(response.finishReason, "stop", "a plain answer finishes with stop")
      assert.deepStrictEqual(response.message, { role: "assistant", content: "ok" }, "an answer without calls has no toolCalls key")
    }))
}

/** Retries: which failures are retried, how often, and what surfaces when they run out. */
const retryTests = ({ answerAfter, failEveryTime }: SuiteContext): void => {
  test.live("retries a 500 exactly maxRetries times, then fails with ServerError", () =>
    Effect.gen(function*() {
      const { error, server } = yield* failEveryTime({ status: 500 })
      assert.instanceOf(error, LlmError, "failures are LlmErrors")
      assert.strictEqual(error.reason, "ServerError", "a 5xx is a ServerError")
      assert.strictEqual(error.status, 500, "the error carries the HTTP status")
      assert.isTrue(error.retryable, "a ServerError is retryable")
      assert.strictEqual(server.requests.length, 3, "one attempt plus RetryPolicy.maxRetries (2) retries")
    }).pipe(fastRetries))

  // A failure the next attempt gets past: the answer that follows, after one retry.
  const retriedOnce = [
    { name: "retries a 429 and returns the answer that follows", failure: { status: 429 }, text: "finally", answer: "the answer after the 429", retried: "the 429 was retried once" },
    { name: "retries a connection dropped before the first byte", failure: { disconnect: true }, text: "after the drop", answer: "the answer of the retried request", retried: "the dropped request was retried once" }
  ] as const
  for (const c of retriedOnce) {
    test.live(c.name, () =>
      Effect.gen(function*() {
        const { response, server } = yield* answerAfter(c.failure, c.text)
        assert.strictEqual(response.message.content, c.text, c.answer)
        assert.strictEqual(server.requests.length, 2, c.retried)
      }).pipe(fastRetries))
  }

  // A failure on every attempt: the reason it surfaces as once the retries run out.
  const exhausted = [
    { name: "a 429 on every attempt fails with RateLimited after maxRetries", failure: { status: 429 }, reason: "RateLimited", why: "exhausted 429 retries surface as RateLimited", status: 429 },
    { name: "a connection dropped on every attempt fails with Network after maxRetries", failure: { disconnect: true }, reason: "Network", why: "exhausted network retries surface as Network", status: undefined }
  ] as const
  for (const c of exhausted) {
    test.live(c.name, () =>
      Effect.gen(function*() {
        const { error, server } = yield* failEveryTime(c.failure)
        assert.strictEqual(error.reason, c.reason, c.why)
        if (c.status !== undefined) assert.strictEqual(error.status, c.status, "the error carries the HTTP status")
        assert.strictEqual(server.requests.length, 3, "one attempt plus RetryPolicy.maxRetries (2) retries")
      }).pipe(fastRetries))
  }

  test.live("maxRetries 0 sends one request only", () =>
    Effect.gen(function*() {
      const { error, server } = yield* failEveryTime({ status: 503 })
      assert.strictEqual(error.reason, "ServerError", "a 503 is a ServerError")
      assert.strictEqual(server.requests.length, 1, "RetryPolicy.maxRetries 0 disables retrying")
    }).pipe(Effect.provideService(RetryPolicy, { maxRetries: 0, baseDelay: "5 millis", maxDelay: "5 millis" })))
}

/** Failures that are not retried, aborts on interruption, and the registry. */
const failureTests = ({ fixture, model, configFor, fakeServer, awaitAbort, setup, failEveryTime }: SuiteContext): void => {
  test.live("fails a 401 with Authentication, without retrying, with the server's message", () =>
    Effect.gen(function*() {
      const { error, server } = yield* failEveryTime({ status: 401 })
      assert.strictEqual(error.reason, "Authentication", "a 401 is an Authentication failure")
      assert.isFalse(error.retryable, "an Authentication failure is not retryable")
      assert.strictEqual(error.status, 401, "the error carries the HTTP status")
      assert.include(error.detail, "scripted HTTP 401", "the detail is the message from the vendor's error body")
      assert.strictEqual(server.requests.length, 1, "a 401 is not retried")
    }).pipe(fastRetries))

  test.live("an error event mid-stream fails the stream after the parts before it, without retrying", () =>
    Effect.gen(function*() {
      const { lm, server } = yield* setup({ replies: [{ text: "start", streamError: { message: "the model fell over" } }] })
      const seen: Array<StreamPart> = []
      const error = yield* Effect.flip(Stream.runForEach(lm.stream(ask("hi")), (part) => Effect.sync(() => seen.push(part))))
      assert.instanceOf(error, LlmError, "the stream fails with an LlmError")
      assert.include(error.detail, "the model fell over", "the detail carries the in-stream error's message")
      assert.strictEqual(
        seen.filter((p) => p.type === "text-delta").map((p) => p.text).join(""),
        "start",
        "the text streamed before the error was delivered"
      )
      assert.isFalse(seen.some((p) => p.type === "finish"), "a failed stream has no finish part")
      assert.strictEqual(server.requests.length, 1, "a failure after the first byte is not retried")
    }).pipe(fastRetries))

  test.live("interrupting the stream mid-way aborts the HTTP request", () =>
    Effect.gen(function*() {
      const { lm, server } = yield* setup({ replies: [{ text: "partial answer", hang: true }] })
      const first = yield* Deferred.make<StreamPart>()
      const fiber = yield* lm.stream(ask("hi")).pipe(
        Stream.runForEach((part) => Deferred.succeed(first, part)),
        Effect.forkChild
      )
      const part = yield* Deferred.await(first)
      assert.strictEqual(part.type, "text-delta", "the first part arrives while the server keeps the stream open")
      yield* Fiber.interrupt(fiber)
      yield* awaitAbort(server)
      assert.strictEqual(server.aborted, 1, "the server saw the client abandon the response")
    }))

  test.live("interrupting before the first byte aborts the HTTP request", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const { lm, server } = yield* setup({
        respond: () => {
          Deferred.doneUnsafe(arrived, Effect.void)
          return { hang: true }
        }
      })
      const fiber = yield* Effect.forkChild(lm.generate(ask("hi")))
      yield* Deferred.await(arrived)
      yield* Fiber.interrupt(fiber)
      yield* awaitAbort(server)
      assert.strictEqual(server.aborted, 1, "the server saw the client abandon the request")
      assert.strictEqual(server.requests.length, 1, "an interrupted request is not retried")
    }))

  test.live("resolves through a ModelRegistry under its name", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "via registry" }] })
      const registry = yield* ModelRegistry
      const resolved = yield* registry.resolve(`${fixture.adapter.name}:${model}`, configFor(server.url))
      assert.strictEqual(resolved.provider, fixture.adapter.name, "the model's provider is the adapter's registry name")
      assert.strictEqual(resolved.model, model, "the model's name is the part of the spec after the colon")
      const response = yield* resolved.generate(ask("hi"))
      assert.strictEqual(response.message.content, "via registry", "the resolved model answers")
    }).pipe(Effect.provide(modelRegistryProvide(fixture.adapter).pipe(Layer.provideMerge(modelRegistryLayer)))))
}

/**
 * Registers the adapter conformance tests under `describe(name)`. Call it once, at the top
 * level of a vitest file: `modelAdapterSuite("OpenAIAdapter", { adapter: OpenAIAdapter,
 * startServer: startFakeOpenAIServer })`. Vendor-specific checks (request body, headers,
 * error-body shapes) stay in the adapter's own tests.
 *
 * Gotcha: the tests use real sockets and the live clock (`effectTests(it).live`), and a `RetryPolicy` of
 * two fast retries; an adapter must build its requests on `postSse` (or honour
 * `RetryPolicy` and abort on interruption the same way) to pass.
 */
export const modelAdapterSuite = (name: string, fixture: ModelAdapterFixture): void => {
  const context = suiteContext(fixture)
  describe(name, () => {
    answerTests(context)
    retryTests(context)
    failureTests(context)
  })
}
