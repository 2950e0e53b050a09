import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { serveEchoAgent } from "../src/testing.ts"
import { makeEnv } from "./support.ts"

/** A raw HTTP server on 127.0.0.1 (port 0) answering with `handle`; closed with the scope. */
const serveRaw = (handle: (url: string, req: IncomingMessage, body: string, res: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; close: () => Promise<void> }>((ok) => {
        let base = ""
        const server = createServer((req, res) => {
          let body = ""
          req.on("data", (c) => (body += c))
          req.on("end", () => handle(base, req, body, res))
        })
        server.listen(0, "127.0.0.1", () => {
          base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
          ok({ url: base, close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()) }) })
        })
      })
    ),
    (s) => Effect.promise(s.close)
  )

const card = (url: string, streaming: boolean, binding = "JSONRPC") =>
  JSON.stringify({
    name: "Raw",
    description: "a hand-made agent",
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: binding, protocolVersion: "1.0" }],
    version: "1",
    capabilities: { streaming },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: []
  })

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(typeof value === "string" ? value : JSON.stringify(value))
}

describe("subagent-a2a bad input", () => {
  it.live("an unreachable URL makes the type unavailable with a reason, never a crash", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv([{ name: "gone", url: "http://127.0.0.1:1" }])
      assert.strictEqual(env.backend.types.length, 0)
      const [s] = env.backend.statuses
      assert.strictEqual(s?.status, "invalid")
      assert.match(s?.reason ?? "", /^a2a:gone: cannot read its agent card at http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json/)
    }).pipe(Effect.scoped), 20_000)

  it.live("a card over 1 MiB, one with no JSON-RPC interface, one that is not JSON", () =>
    Effect.gen(function*() {
      const big = yield* serveRaw((_, __, ___, res) => json(res, 200, JSON.stringify({ name: "x", pad: "y".repeat(1100 * 1024) })))
      const grpc = yield* serveRaw((url, _, __, res) => json(res, 200, card(url, true, "GRPC")))
      const html = yield* serveRaw((_, __, ___, res) => json(res, 200, "<html>"))
      const env = yield* makeEnv([{ name: "big", url: big.url }, { name: "grpc", url: grpc.url }, { name: "html", url: `${html.url}/card.json` }])
      assert.strictEqual(env.backend.types.length, 0)
      const reasons = env.backend.statuses.map((s) => s.reason ?? "")
      assert.include(reasons[0], "over 1048576 bytes")
      assert.include(reasons[1], "names no supported transport (JSONRPC); it offers GRPC")
      assert.include(reasons[2], `${html.url}/card.json is not JSON`)
    }).pipe(Effect.scoped), 20_000)

  it.live("a server that answers 500: a failed child with one line; the card is read once for all children", () =>
    Effect.gen(function*() {
      let cards = 0
      const broken = yield* serveRaw((url, req, _, res) => {
        if (req.method !== "GET") return json(res, 500, "oops")
        cards += 1
        json(res, 200, card(url, false))
      })
      const env = yield* makeEnv([{ name: "broken", url: broken.url }])
      const a = yield* env.subagents.spawn({ prompt: "hi", description: "500", agent: "a2a:broken" }, env.parent)
      assert.strictEqual(a.status, "failed")
      assert.match(a.notes ?? "", /^a2a:broken: message\/send failed: .*500/)
      assert.notInclude(a.notes ?? "", "\n")
      yield* env.subagents.spawn({ prompt: "again", description: "500", agent: "a2a:broken" }, env.parent)
      assert.strictEqual(cards, 1)
    }).pipe(Effect.scoped), 20_000)

  it.live("a task for another context than the one continued is a failed child", () =>
    Effect.gen(function*() {
      let n = 0
      const other = yield* serveRaw((url, req, body, res) => {
        if (req.method === "GET") return json(res, 200, card(url, false))
        const id = (JSON.parse(body) as { id: number }).id
        n += 1
        json(res, 200, { jsonrpc: "2.0", id, result: { task: { id: `t${n}`, contextId: `ctx-${n}`, status: { state: "TASK_STATE_COMPLETED" } } } })
      })
      const env = yield* makeEnv([{ name: "other", url: other.url }])
      const b = yield* env.subagents.spawn({ prompt: "hi", description: "ctx", agent: "a2a:other" }, env.parent)
      assert.strictEqual(b.status, "completed", b.notes)
      const c = yield* env.subagents.send(b.handle, "again", "user")
      assert.strictEqual(c._tag, "Replied")
      if (c._tag === "Replied") {
        assert.strictEqual(c.result.status, "failed")
        assert.include(c.result.notes ?? "", "a2a:other: the agent answered for another context (ctx-2, not ctx-1)")
      }
    }).pipe(Effect.scoped), 20_000)

  it.live("an SSE stream that never ends: the child's timeout ends it", () =>
    Effect.gen(function*() {
      const silent = yield* serveRaw((url, req, _, res) => {
        if (req.method === "GET") return json(res, 200, card(url, true))
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(": hello\n\n")
      })
      const env = yield* makeEnv([{ name: "silent", url: silent.url, timeoutSeconds: 1 }])
      const r = yield* env.subagents.spawn({ prompt: "hi", description: "sse", agent: "a2a:silent" }, env.parent)
      assert.strictEqual(r.status, "timeout")
      assert.include(r.notes ?? "", "a2a:silent: no answer within its timeout_seconds = 1")
    }).pipe(Effect.scoped), 20_000)

  it.live("headers with ${VAR} from env: the token reaches the agent; without it, a failed child naming 401", () =>
    Effect.gen(function*() {
      const echo = yield* Effect.acquireRelease(Effect.promise(() => serveEchoAgent({ token: "s3cret" })), (e) => Effect.promise(e.close))
      const env = yield* makeEnv(
        [
          { name: "keyed", url: echo.url, headers: { Authorization: "Bearer ${TOKEN}" }, env: { TOKEN: "${A2A_TEST_SECRET}" } },
          { name: "bare", url: echo.url }
        ],
        { environment: { A2A_TEST_SECRET: "s3cret" } }
      )
      const ok = yield* env.subagents.spawn({ prompt: "echo let me in", description: "keyed", agent: "a2a:keyed" }, env.parent)
      assert.strictEqual(ok.status, "completed", ok.notes)
      assert.strictEqual(ok.output, "let me in")
      const refused = yield* env.subagents.spawn({ prompt: "echo let me in", description: "bare", agent: "a2a:bare" }, env.parent)
      assert.strictEqual(refused.status, "failed")
      assert.match(refused.notes ?? "", /^a2a:bare: .*401/)
      assert.notInclude(refused.notes ?? "", "\n")
    }).pipe(Effect.scoped), 20_000)

  it.live("a JSON-RPC error and a malformed SSE event: failed children with one line", () =>
    Effect.gen(function*() {
      const erring = yield* serveRaw((url, req, body, res) => {
        if (req.method === "GET") return json(res, 200, card(url, false))
        json(res, 200, { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, error: { code: -32603, message: "the backend is down" } })
      })
      const garbled = yield* serveRaw((url, req, _, res) => {
        if (req.method === "GET") return json(res, 200, card(url, true))
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end("data: {this is not json\n\n")
      })
      const env = yield* makeEnv([{ name: "erring", url: erring.url }, { name: "garbled", url: garbled.url }])
      const a = yield* env.subagents.spawn({ prompt: "hi", description: "rpc error", agent: "a2a:erring" }, env.parent)
      assert.strictEqual(a.status, "failed")
      assert.match(a.notes ?? "", /^a2a:erring: message\/send failed: .*the backend is down/)
      assert.notInclude(a.notes ?? "", "\n")
      const b = yield* env.subagents.spawn({ prompt: "hi", description: "bad sse", agent: "a2a:garbled" }, env.parent)
      assert.strictEqual(b.status, "failed")
      assert.match(b.notes ?? "", /^a2a:garbled: its stream failed/)
      assert.notInclude(b.notes ?? "", "\n")
    }).pipe(Effect.scoped), 20_000)

  it.live("a server that never answers: the card times out (invalid), a send ends at the child's timeout and its request is closed", () =>
    Effect.gen(function*() {
      const mute = yield* serveRaw(() => undefined)
      const cardless = yield* makeEnv([{ name: "mute", url: mute.url }], { cardTimeoutMs: 300 })
      assert.strictEqual(cardless.backend.types.length, 0)
      assert.strictEqual(cardless.backend.statuses[0]?.reason, `a2a:mute: cannot read its agent card at ${mute.url}/.well-known/agent-card.json: timed out`)

      // The card answers; the send never does.
      const closed = Promise.withResolvers<void>()
      const silent = yield* serveRaw((url, req, _, res) => {
        if (req.method === "GET") return json(res, 200, card(url, false))
        res.on("close", () => closed.resolve())
      })
      const env = yield* makeEnv([{ name: "silent", url: silent.url, timeoutSeconds: 1 }])
      const r = yield* env.subagents.spawn({ prompt: "hi", description: "mute", agent: "a2a:silent" }, env.parent)
      assert.strictEqual(r.status, "timeout")
      assert.include(r.notes ?? "", "a2a:silent: no answer within its timeout_seconds = 1")
      // The client gave up on the request: the server sees it closed (else this waits past the test's limit).
      yield* Effect.promise(() => closed.promise)
    }).pipe(Effect.scoped), 20_000)
})
