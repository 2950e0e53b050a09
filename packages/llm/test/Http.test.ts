import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Http } from "../src/index.ts"
import { FakeSseServer } from "../src/testing.ts"

const fastRetries = Effect.provideService(Http.RetryPolicy, { maxRetries: 2, baseDelay: "5 millis", maxDelay: "20 millis" })

/** A minimal wire: each text chunk is one `data:` event. */
const plainWire: FakeSseServer.FakeWire = {
  basePath: "",
  endpoint: "/sse",
  errorBody: (_status, message) => ({ error: { message } }),
  render: (reply) => ({ head: (reply.text ?? "").split(" ").map((w) => FakeSseServer.sseFrame(w)), tail: [FakeSseServer.sseFrame("end", "done")] })
}

const fake = (options: FakeSseServer.FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeSseServer.startFakeSseServer(plainWire, options)),
    (server) => Effect.promise(() => server.close())
  )

/** A plain HTTP server on 127.0.0.1 for the duration of the test's scope. */
const serve = (handler: Parameters<typeof createServer>[1]) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly url: string; readonly server: ReturnType<typeof createServer> }>((resolve) => {
        const server = createServer(handler)
        server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }))
      })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }))
  )

const post = (url: string) => Http.postSse({ provider: "test", url: `${url}/sse`, headers: { "x-test": "1" }, body: { hello: "world" } })

describe("postSse", () => {
  it.live("posts JSON and streams the events", () =>
    Effect.gen(function*() {
      const server = yield* fake({ replies: [{ text: "a b c" }] })
      const events = yield* Stream.runCollect(post(server.url))
      assert.deepStrictEqual(events.map((e) => `${e.event}:${e.data}`), ["message:a", "message:b", "message:c", "done:end"])
      assert.deepStrictEqual(server.requests[0]?.body, { hello: "world" })
      assert.strictEqual(server.requests[0]?.headers["x-test"], "1")
      assert.strictEqual(server.requests[0]?.headers["content-type"], "application/json")
    }))

  it.live("retries 5xx and 429 before the first byte, up to maxRetries", () =>
    Effect.gen(function*() {
      const server = yield* fake({ replies: [{ status: 503 }, { status: 429 }, { text: "ok" }] })
      const events = yield* Stream.runCollect(post(server.url))
      assert.strictEqual(events[0]?.data, "ok")
      assert.strictEqual(server.requests.length, 3)
    }).pipe(fastRetries))

  it.live("maxRetries 0 disables retrying", () =>
    Effect.gen(function*() {
      const server = yield* fake({ respond: () => ({ status: 502 }) })
      const error = yield* Effect.flip(Stream.runCollect(post(server.url)))
      assert.strictEqual(error.reason, "ServerError")
      assert.strictEqual(server.requests.length, 1)
    }).pipe(Effect.provideService(Http.RetryPolicy, { maxRetries: 0, baseDelay: "5 millis", maxDelay: "5 millis" })))

  it.live("does not retry a 400, and reports the body's message", () =>
    Effect.gen(function*() {
      const server = yield* fake({ respond: () => ({ status: 400, errorBody: { error: { message: "bad field" } } }) })
      const error = yield* Effect.flip(Stream.runCollect(post(server.url)))
      assert.strictEqual(error.reason, "InvalidRequest")
      assert.strictEqual(error.detail, "bad field")
      assert.strictEqual(error.status, 400)
      assert.isFalse(error.retryable)
      assert.strictEqual(server.requests.length, 1)
    }).pipe(fastRetries))

  it.live("a refused connection is a Network error", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(() => FakeSseServer.startFakeSseServer(plainWire, { replies: [] }))
      const url = server.url
      yield* Effect.promise(() => server.close())
      const error = yield* Effect.flip(Stream.runCollect(post(url)))
      assert.strictEqual(error.reason, "Network")
    }).pipe(fastRetries))

  it.live("an https URL is spoken to over TLS (a plain-HTTP server there is a Network error, not an answer)", () =>
    Effect.gen(function*() {
      const server = yield* fake({ replies: [{ text: "plain" }] })
      const error = yield* Effect.flip(Stream.runCollect(post(server.url.replace(/^http:/, "https:"))))
      assert.strictEqual(error.reason, "Network")
      assert.strictEqual(server.requests.length, 0)
    }).pipe(Effect.provideService(Http.RetryPolicy, { maxRetries: 0, baseDelay: "5 millis", maxDelay: "5 millis" })))

  it.live("a connection cut mid-stream fails with Network, without retrying", () =>
    Effect.gen(function*() {
      let requests = 0
      const { url } = yield* serve((req, res) => {
        requests++
        req.resume()
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write("data: one\n\n", () => setImmediate(() => res.destroy()))
      })
      const seen: Array<string> = []
      const error = yield* Effect.flip(Stream.runForEach(post(url), (e) => Effect.sync(() => seen.push(e.data))))
      assert.deepStrictEqual(seen, ["one"])
      assert.strictEqual(error.reason, "Network")
      assert.strictEqual(requests, 1)
    }).pipe(fastRetries))

  it.effect("parseJsonEvent fails malformed data with BadResponse", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Http.parseJsonEvent("test", "{\"a\":1}"), { a: 1 })
      const error = yield* Effect.flip(Http.parseJsonEvent("test", "{nope"))
      assert.strictEqual(error.reason, "BadResponse")
    }))
})

describe("postSse over HTTP", () => {
  it.live("follows a 307/308 redirect with the same method and body", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const { url } = yield* serve((req, res) => {
        let body = ""
        req.on("data", (c: Buffer) => (body += c.toString()))
        req.on("end", () => {
          seen.push(`${req.method} ${req.url} ${body}`)
          if (req.url === "/sse") {
            res.writeHead(308, { location: "/moved" })
            res.end()
          } else {
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.end("data: here\n\n")
          }
        })
      })
      const events = yield* Stream.runCollect(post(url))
      assert.deepStrictEqual(events.map((e) => e.data), ["here"])
      assert.deepStrictEqual(seen, ["POST /sse {\"hello\":\"world\"}", "POST /moved {\"hello\":\"world\"}"])
    }))

  it.live("a reader that stops at its last event leaves the connection to the next request (keep-alive)", () =>
    Effect.gen(function*() {
      let connections = 0
      let ended = 0
      const { url, server } = yield* serve((req, res) => {
        req.resume()
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write("data: one\n\ndata: [DONE]\n\n")
        // The end comes a moment after the last event, as from a real provider.
        setTimeout(() => res.end(), 20)
        res.on("close", () => void ended++)
      })
      server.on("connection", () => connections++)
      for (let i = 0; i < 3; i++) {
        const events = yield* Stream.runCollect(post(url).pipe(Stream.takeWhile((e) => e.data !== "[DONE]")))
        assert.deepStrictEqual(events.map((e) => e.data), ["one"])
        // The next request goes out once this response is over (ended, or cut by an abort).
        while (ended <= i) yield* Effect.yieldNow
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      assert.strictEqual(connections, 1, "one connection for three requests")
    }))

  it.live("an interrupted reader aborts the request: the server sees the connection close", () =>
    Effect.gen(function*() {
      const closed = Promise.withResolvers<void>()
      const { url } = yield* serve((req, res) => {
        req.resume()
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write("data: one\n\n")
        res.on("close", () => closed.resolve())
      })
      const first = yield* Deferred.make<void>()
      const reader = yield* Effect.forkChild(Stream.runForEach(post(url), () => Effect.andThen(Deferred.succeed(first, undefined), Effect.never)))
      yield* Deferred.await(first)
      yield* Fiber.interrupt(reader)
      yield* Effect.promise(() => closed.promise)
    }))

  it.live("a stream that goes silent fails with Network after the idle timeout, not never", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((req, res) => {
        req.resume()
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write("data: one\n\n")
      })
      const seen: Array<string> = []
      const error = yield* Effect.flip(Stream.runForEach(post(url), (e) => Effect.sync(() => seen.push(e.data))))
      assert.deepStrictEqual(seen, ["one"])
      assert.strictEqual(error.reason, "Network")
      assert.include(error.detail, "no data from the server")
    }).pipe(Effect.provideService(Http.RetryPolicy, { maxRetries: 0, baseDelay: "5 millis", maxDelay: "5 millis", idleTimeout: "150 millis" })))

  it.live("a server that never answers is a Network error after the idle timeout, retried like one", () =>
    Effect.gen(function*() {
      let requests = 0
      const { url } = yield* serve((req) => {
        requests++
        req.resume()
      })
      const error = yield* Effect.flip(Stream.runCollect(post(url)))
      assert.strictEqual(error.reason, "Network")
      assert.strictEqual(requests, 2)
    }).pipe(Effect.provideService(Http.RetryPolicy, { maxRetries: 1, baseDelay: "5 millis", maxDelay: "5 millis", idleTimeout: "150 millis" })))
})

describe("postSse with a non-streaming answer", () => {
  it.live("a JSON body where an event stream was expected is a BadResponse, not an empty answer", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((req, res) => {
        req.resume()
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "streaming is not supported" } }))
      })
      const error = yield* Effect.flip(Stream.runCollect(post(url)))
      assert.strictEqual(error.reason, "BadResponse")
      assert.include(error.detail, "streaming is not supported")
    }))
})
