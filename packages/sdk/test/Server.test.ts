import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Latch } from "effect"
import type { PassThrough } from "node:stream"
import { Framing, type Methods, Protocol, SdkClient, type SdkError } from "../src/index.ts"
import { makeFakeHost, serveFake } from "./support.ts"

/** A raw peer: writes lines, reads whole JSON frames. */
const rawPeer = (input: PassThrough, output: PassThrough) => {
  const decoder = new Framing.FrameDecoder()
  const frames: Array<Record<string, unknown>> = []
  const waiters: Array<() => void> = []
  input.on("data", (chunk: Buffer) => {
    for (const f of decoder.push(chunk)) if (f._tag === "Frame") frames.push(JSON.parse(f.text) as Record<string, unknown>)
    for (const w of waiters.splice(0)) w()
  })
  const next: Effect.Effect<Record<string, unknown>> = Effect.suspend(() => {
    const frame = frames.shift()
    if (frame !== undefined) return Effect.succeed(frame)
    return Effect.callback<void>((resume) => void waiters.push(() => resume(Effect.void))).pipe(Effect.andThen(Effect.suspend(() => next)))
  })
  return { write: (line: string) => Effect.sync(() => void output.write(`${line}\n`)), next }
}

const errorCode = (frame: Record<string, unknown>) => (frame.error as { code: number } | undefined)?.code

describe("serveSdk (protocol faults)", () => {
  it.live("answers every malformed or unknown message with a typed error and keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost(), { maxFrameBytes: 4096 })
      const peer = rawPeer(served.client.input, served.client.output)
      yield* peer.write(`{"jsonrpc":"2.0","id":1,"method":"session.list"}`)
      assert.strictEqual(errorCode(yield* peer.next), Protocol.ErrorCode.NotInitialized)
      yield* peer.write(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":99}}`)
      const refused = yield* peer.next
      assert.strictEqual(errorCode(refused), Protocol.ErrorCode.Unsupported)
      assert.deepStrictEqual((refused.error as { data: unknown }).data, { supported: [1] })
      yield* peer.write(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}`)
      const init = yield* peer.next
      assert.strictEqual((init.result as { serverInfo: { name: string } }).serverInfo.name, "dsh")
      yield* peer.write(`this is not json`)
      const parse = yield* peer.next
      assert.strictEqual(errorCode(parse), Protocol.ErrorCode.ParseError)
      assert.isNull(parse.id)
      yield* peer.write(`{"jsonrpc":"1.0","id":4,"method":"ping"}`)
      const invalid = yield* peer.next
      assert.strictEqual(errorCode(invalid), Protocol.ErrorCode.InvalidRequest)
      assert.strictEqual(invalid.id, 4)
      yield* peer.write(`{"jsonrpc":"2.0","id":5,"method":"session.fly"}`)
      assert.strictEqual(errorCode(yield* peer.next), Protocol.ErrorCode.MethodNotFound)
      yield* peer.write(`{"jsonrpc":"2.0","id":6,"method":"session.prompt","params":{"sessionId":7}}`)
      const badParams = yield* peer.next
      assert.strictEqual(errorCode(badParams), Protocol.ErrorCode.InvalidParams)
      assert.include((badParams.error as { message: string }).message, "sessionId")
      yield* peer.write(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${"x".repeat(5000)}"}}`)
      assert.strictEqual(errorCode(yield* peer.next), Protocol.ErrorCode.FrameTooLarge)
      yield* peer.write(`{"jsonrpc":"2.0","method":"no.such.notification"}`)
      yield* peer.write(`{"jsonrpc":"2.0","id":8,"method":"session.load","params":{"sessionId":"missing"}}`)
      assert.strictEqual(errorCode(yield* peer.next), Protocol.ErrorCode.NotFound)
      yield* peer.write(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
      assert.deepStrictEqual(yield* peer.next, { jsonrpc: "2.0", id: 9, result: {} })
    })))
})

describe("serveSdk + SdkClient (in memory)", () => {
  it.live("runs a prompt: events stream before the result, descendants carry their handle, usage rolls up", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      const seen: Array<Methods.SessionEvent> = []
      const client = yield* SdkClient.connect({ ...served.client })
      assert.strictEqual(client.server.protocolVersion, 1)
      assert.deepStrictEqual(client.server.capabilities.children, { send: true, stop: true })
      const session = yield* client.createSession({ cwd: "/tmp" })
      const result = yield* client.prompt({ sessionId: session.id, prompt: "child" }, { onEvent: (e) => Effect.sync(() => seen.push(e)) })
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(result.result, "echo child")
      assert.deepStrictEqual(result.usage, { inputTokens: 10, outputTokens: 5, totalTokens: 15 })
      assert.deepStrictEqual(result.totalUsage, { inputTokens: 17, outputTokens: 8, totalTokens: 25 })
      assert.deepStrictEqual(seen.map((e) => `${e.handle ?? "main"}:${e.event.type}`), [
        "main:turn-start",
        "explore-1:usage",
        "explore-1:text-delta",
        "main:text-delta",
        "main:usage",
        "main:turn-end"
      ])
      assert.deepStrictEqual((yield* client.listSessions).map((s) => s.id), [session.id])
      const loaded = yield* client.loadSession(session.id, { includeRecords: true })
      assert.strictEqual(loaded.turns, 1)
      assert.strictEqual(loaded.records?.[0]?.type, "turn-end")
    })))

  it.live("a prompt's content parts reach the host", () =>
    Effect.scoped(Effect.gen(function*() {
      const host = makeFakeHost()
      const served = yield* serveFake(host)
      const client = yield* SdkClient.connect({ ...served.client })
      const session = yield* client.createSession({ cwd: "/tmp" })
      const promptParts = [{ type: "text", text: "see" }, { type: "image", mediaType: "image/png", data: "AAAA" }] as const
      yield* client.prompt({ sessionId: session.id, prompt: "see", promptParts })
      assert.deepStrictEqual(host.parts, [promptParts])
    })))

  it.live("session.cancel ends a running prompt as cancelled; a second prompt on the session is Busy", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      const client = yield* SdkClient.connect({ ...served.client })
      const { id } = yield* client.createSession()
      const started = yield* Latch.make()
      const running = yield* Effect.forkChild(client.prompt({ sessionId: id, prompt: "hang" }, {
        onEvent: (e) => (e.event.type === "text-delta" ? started.open : Effect.void)
      }))
      yield* started.await
      const busy = yield* Effect.flip(client.prompt({ sessionId: id, prompt: "again" }))
      assert.strictEqual(busy.reason, "Remote")
      assert.strictEqual(busy.code, Protocol.ErrorCode.Busy)
      assert.isTrue(yield* client.cancel(id))
      const result = yield* Fiber.join(running)
      assert.strictEqual(result.status, "cancelled")
      assert.strictEqual(result.usage.totalTokens, 15)
      assert.isFalse(yield* client.cancel(id))
    })))

  it.live("interrupting a prompt call cancels the turn on the server", () =>
    Effect.scoped(Effect.gen(function*() {
      const host = makeFakeHost()
      const served = yield* serveFake(host)
      const ends: Array<string> = []
      const client = yield* SdkClient.connect({
        ...served.client,
        onEvent: (e) => Effect.sync(() => (e.event.type === "turn-end" ? ends.push(e.event.status) : undefined))
      })
      const { id } = yield* client.createSession()
      const started = yield* Latch.make()
      const running = yield* Effect.forkChild(client.prompt({ sessionId: id, prompt: "hang" }, {
        onEvent: (e) => (e.event.type === "text-delta" ? started.open : Effect.void)
      }))
      yield* started.await
      yield* Fiber.interrupt(running)
      assert.deepStrictEqual(ends, ["cancelled"])
      // The session is free again.
      assert.strictEqual((yield* client.prompt({ sessionId: id, prompt: "next" })).result, "echo next")
    })))

  it.live("a generic call given a timeout fails with Timeout and is cancelled remotely", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      const client = yield* SdkClient.connect({ ...served.client })
      const { id } = yield* client.createSession()
      const error = yield* Effect.flip(client.request("session.prompt", { sessionId: id, prompt: "hang" }, { timeout: "200 millis" }))
      assert.strictEqual(error.reason, "Timeout")
      // $/cancelRequest freed the session.
      assert.strictEqual((yield* client.prompt({ sessionId: id, prompt: "next" })).status, "completed")
    })))

  it.live("children.send/stop of a host without a continuation manager are Unsupported; a crashing host is Internal", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      const client = yield* SdkClient.connect({ ...served.client })
      const { id } = yield* client.createSession()
      const send = yield* Effect.flip(client.sendToChild({ sessionId: id, handle: "explore-1", message: "hi" }))
      assert.strictEqual(send.code, Protocol.ErrorCode.Unsupported)
      const stop = yield* Effect.flip(client.stopChild({ sessionId: id, handle: "all" }))
      assert.strictEqual(stop.code, Protocol.ErrorCode.Unsupported)
      const crash = yield* Effect.flip(client.prompt({ sessionId: id, prompt: "crash" }))
      assert.strictEqual(crash.code, Protocol.ErrorCode.Internal)
      const missing = yield* Effect.flip(client.prompt({ sessionId: "nope", prompt: "x" }))
      assert.strictEqual(missing.code, Protocol.ErrorCode.NotFound)
    })))

  it.live("when the input closes, the server interrupts in-flight prompts and ends", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      const ends: Array<string> = []
      const client = yield* SdkClient.connect({
        ...served.client,
        onEvent: (e) => Effect.sync(() => (e.event.type === "turn-end" ? ends.push(e.event.status) : undefined))
      })
      const { id } = yield* client.createSession()
      const started = yield* Latch.make()
      const running = yield* Effect.forkChild(client.prompt({ sessionId: id, prompt: "hang" }, {
        onEvent: (e) => (e.event.type === "text-delta" ? started.open : Effect.void)
      }))
      yield* started.await
      served.client.output.end()
      yield* served.done
      const error: SdkError.SdkError = yield* Effect.flip(Fiber.join(running))
      assert.strictEqual(error.reason, "ConnectionClosed")
      assert.deepStrictEqual(ends, ["cancelled"])
    })))

  it.live("streams large outputs completely and in order (backpressure, no loss)", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* serveFake(makeFakeHost())
      let deltas = 0
      let bytes = 0
      const client = yield* SdkClient.connect({ ...served.client })
      const { id } = yield* client.createSession()
      const result = yield* client.prompt({ sessionId: id, prompt: "big:4096" }, {
        onEvent: (e) =>
          e.event.type === "text-delta"
            ? Effect.sync(() => {
              deltas++
              bytes += e.event.type === "text-delta" ? e.event.text.length : 0
            }).pipe(Effect.andThen(deltas % 512 === 0 ? Effect.sleep(1) : Effect.void))
            : Effect.void
      })
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(deltas, 4097)
      assert.strictEqual(bytes, 4096 * 1024 + "echo big:4096".length)
    })))
})
