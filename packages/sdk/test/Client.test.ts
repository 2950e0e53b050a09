import { assert, describe, it } from "@effect/vitest"
import { AgentHost } from "@dsh/agent"
import { LocalProcessLauncher, type ProcessLauncher } from "@dsh/subprocess"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { PassThrough } from "node:stream"
import { SdkClient, type SdkError, SdkServer, createSdkClient } from "../src/index.ts"
import { makeTransport } from "../src/internal/Transport.ts"
import { fakeServerScript, makeFakeHost, startScript, streamPair, tempDir } from "./support.ts"

const withLauncher = <A, E, R>(effect: Effect.Effect<A, E, R | ProcessLauncher.ProcessLauncher>) =>
  Effect.provide(effect, LocalProcessLauncher.layer({ killGrace: "500 millis" }))

const gone = (pid: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !ProcessChecks.isGone(pid); i++) yield* Effect.sleep(10)
    return ProcessChecks.isGone(pid)
  })

const script = fakeServerScript(tempDir())
const spawnFake = (mode: string, extra: Partial<Parameters<typeof SdkClient.spawn>[0]> = {}) =>
  SdkClient.spawn({ command: process.execPath, args: [script, mode], handshakeTimeout: "5 seconds", exitGrace: "200 millis", ...extra })

describe("SdkClient against broken servers", () => {
  it.live("garbage on stdout: pending calls fail with ProtocolViolation, the connection closes", () =>
    withLauncher(Effect.scoped(Effect.gen(function*() {
      const client = yield* spawnFake("garbage")
      const [a, b] = yield* Effect.all([Effect.flip(client.listSessions), Effect.flip(client.ping)], { concurrency: 2 })
      assert.strictEqual(a.reason, "ProtocolViolation")
      assert.strictEqual(b.reason, "ProtocolViolation")
      assert.include(a.message, "this is not json")
      assert.strictEqual((yield* client.closed).reason, "ProtocolViolation")
      assert.strictEqual((yield* Effect.flip(client.ping)).reason, "ProtocolViolation")
    }))))

  it.live("an oversized frame: FrameTooLarge, connection closed", () =>
    withLauncher(Effect.scoped(Effect.gen(function*() {
      const client = yield* spawnFake("oversized", { maxFrameBytes: 64 * 1024 })
      const error = yield* Effect.flip(client.listSessions)
      assert.strictEqual(error.reason, "FrameTooLarge")
      assert.strictEqual((yield* client.closed).reason, "FrameTooLarge")
    }))))

  it.live("the server exits mid-request: ConnectionClosed with its exit code and stderr", () =>
    withLauncher(Effect.scoped(Effect.gen(function*() {
      const client = yield* spawnFake("exit")
      const error = yield* Effect.flip(client.listSessions)
      assert.strictEqual(error.reason, "ConnectionClosed")
      assert.include(error.message, "exited with code 3")
      assert.include(error.message, "dying on purpose")
    }))))

  it.live("no handshake: Timeout, and the silent server is stopped with the scope", () =>
    withLauncher(Effect.gen(function*() {
      const scope = yield* Scope.make()
      const exit = yield* Effect.exit(Scope.provide(scope)(spawnFake("silent", { handshakeTimeout: "300 millis" })))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: SdkError.SdkError }).error : undefined
      assert.strictEqual(error?.reason, "Timeout")
      assert.include(error?.message ?? "", "initialize")
      yield* Scope.close(scope, Exit.void)
    })))

  it.live("a result that does not match the schema fails only that call", () =>
    withLauncher(Effect.scoped(Effect.gen(function*() {
      const client = yield* spawnFake("bad-result")
      const error = yield* Effect.flip(client.listSessions)
      assert.strictEqual(error.reason, "ProtocolViolation")
      assert.include(error.message, "session.list")
      // The connection itself is still open.
      const closed = yield* Effect.timeoutOption(client.closed, "50 millis")
      assert.strictEqual(closed._tag, "None")
    }))))

  it.live("releasing a spawned client closes stdin, then runs the ladder on a server that ignores EOF and SIGTERM", () =>
    withLauncher(Effect.gen(function*() {
      const scope = yield* Scope.make()
      const client = yield* Scope.provide(scope)(spawnFake("ignore-eof"))
      const pid = client.pid!
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* gone(pid))
      assert.strictEqual((yield* Effect.flip(client.ping)).reason, "ConnectionClosed")
    })))

  it.live("connect() over a raw child's stdio works the same (any stream pair)", () =>
    Effect.scoped(Effect.gen(function*() {
      const child = startScript(script, ["exit"])
      const client = yield* SdkClient.connect({ input: child.stdout, output: child.stdin })
      const error = yield* Effect.flip(client.ping)
      assert.strictEqual(error.reason, "ConnectionClosed")
    })))
})

describe("SdkClient over in-memory pairs", () => {
  it.live("the server closes mid-request: every pending call fails with ConnectionClosed, nothing hangs", () =>
    Effect.scoped(Effect.gen(function*() {
      const pair = streamPair()
      const decoderSeen = yield* Deferred.make<void>()
      // A hand-written server: answers initialize, then closes once three more requests are in.
      let buffer = ""
      let requests = 0
      pair.server.input.on("data", (chunk: Buffer) => {
        buffer += chunk.toString()
        const lines = buffer.split("\n")
        buffer = lines.pop() ?? ""
        for (const line of lines) {
          const msg = JSON.parse(line) as { id: number; method: string }
          if (msg.method === "initialize") {
            pair.server.output.write(`${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: 1, serverInfo: { name: "x", version: "0" }, capabilities: { methods: [], children: { send: false, stop: false }, maxFrameBytes: 1 } } })}\n`)
          } else if (++requests === 3) {
            Deferred.doneUnsafe(decoderSeen, Effect.void)
            pair.server.output.end()
          }
        }
      })
      const client = yield* SdkClient.connect({ ...pair.client })
      const calls = yield* Effect.forkChild(Effect.all([Effect.flip(client.ping), Effect.flip(client.listSessions), Effect.flip(client.createSession())], { concurrency: 3 }))
      yield* Deferred.await(decoderSeen)
      const errors = yield* Fiber.join(calls)
      assert.deepStrictEqual(errors.map((e) => e.reason), ["ConnectionClosed", "ConnectionClosed", "ConnectionClosed"])
    })))

  it.live("a send waits for drain while the peer does not read (backpressure)", () =>
    Effect.scoped(Effect.gen(function*() {
      const output = new PassThrough({ highWaterMark: 1024 })
      const transport = yield* makeTransport({ input: new PassThrough(), output, maxFrameBytes: 1 << 20 })
      const big = { pad: "x".repeat(4096) }
      yield* transport.send(big) // fills the buffer: written, and this sender waits for drain…
        .pipe(Effect.timeoutOption("100 millis"), Effect.map((o) => assert.strictEqual(o._tag, "None")))
      const second = yield* Effect.forkChild(transport.send(big))
      yield* Effect.sleep(20)
      assert.isUndefined(second.pollUnsafe()) // …and so does everyone after it
      output.resume() // the peer reads: drain fires, the queue moves
      yield* Fiber.join(second)
      const tooBig = yield* Effect.flip(transport.send({ pad: "y".repeat(2 << 20) }))
      assert.strictEqual(tooBig.reason, "FrameTooLarge")
    })))
})

describe("createSdkClient (Promise facade)", () => {
  it("runs calls as Promises, aborts a prompt with a signal, rejects with SdkError after close", async () => {
    const pair = streamPair()
    const host = makeFakeHost()
    const serving = Effect.runFork(SdkServer.serveSdk(pair.server).pipe(Effect.provideService(AgentHost.AgentHost, host)))
    const events: Array<string> = []
    const client = await createSdkClient({ ...pair.client, onEvent: (e) => void events.push(e.event.type) })
    const session = await client.createSession({ cwd: "/tmp" })
    const result = await client.prompt({ sessionId: session.id, prompt: "hi" })
    assert.strictEqual(result.result, "echo hi")
    assert.include(events, "turn-end")
    const controller = new AbortController()
    const started = new Promise<void>((resolve) => {
      void client.prompt({ sessionId: session.id, prompt: "hang" }, {
        signal: controller.signal,
        onEvent: (e) => (e.event.type === "text-delta" ? resolve() : undefined)
      }).catch((error: unknown) => events.push(`rejected:${(error as Error).name}`))
    })
    await started
    controller.abort()
    await new Promise<void>((resolve) => {
      const check = () => (events.includes("rejected:AbortError") ? resolve() : setTimeout(check, 5))
      check()
    })
    assert.strictEqual(events.filter((e) => e === "turn-end").length, 2) // the hang turn ended (cancelled) on the server
    // Closing the client while a prompt runs: the prompt fails with a typed ConnectionClosed.
    let running = false
    const pending = client.prompt({ sessionId: session.id, prompt: "hang" }, { onEvent: () => void (running = true) })
      .then(() => undefined, (e: unknown) => e as SdkError.SdkError)
    while (!running) await new Promise((r) => setTimeout(r, 5))
    await client.close()
    assert.strictEqual((await pending)?.reason, "ConnectionClosed")
    const error = await client.ping().then(() => undefined, (e: unknown) => e as SdkError.SdkError)
    assert.strictEqual(error?._tag, "SdkError")
    assert.strictEqual(error?.reason, "ConnectionClosed")
    assert.strictEqual((await client.closed).reason, "ConnectionClosed")
    await Effect.runPromise(Fiber.await(serving))
  })

  it("rejects with a typed error when the server never answers the handshake", async () => {
    const dir = tempDir()
    const error = await createSdkClient({ command: process.execPath, args: [fakeServerScript(dir), "silent"], handshakeTimeout: 200, exitGrace: 100 })
      .then(() => undefined, (e: unknown) => e as SdkError.SdkError)
    assert.strictEqual(error?.reason, "Timeout")
  })
})
