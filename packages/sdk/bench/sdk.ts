// dsh SDK benchmarks: (1) spawn-to-first-text of an SDK child (`dsh sdk` on the scripted model:
// spawn, handshake, session.create, session.prompt, first text delta), against `node -e 0` in
// the same run; (2) round-trip latency of a small request (`ping`) over an open connection to a
// real `dsh sdk` process, and over an in-memory pair for reference.
// Run: node --conditions=@dsh/source packages/sdk/bench/sdk.ts (after the CLI is built).
import { AgentHost } from "@dsh/agent"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Deferred, Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { PassThrough } from "node:stream"
import { SdkClient, SdkServer } from "../src/index.ts"

const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const SPAWNS = 10
const PINGS = 1000

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const quantile = (xs: ReadonlyArray<number>, q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

const home = mkdtempSync(join(tmpdir(), "dsh-sdk-bench-"))
const scriptFile = join(home, "script.json")
writeFileSync(scriptFile, JSON.stringify({ name: "bench", rules: [{ reply: { text: "first text from the child", usage: { input: 1, output: 1 } } }] }))
const serverOptions = { command: process.execPath, args: [MAIN, "sdk", "--model", `scripted:${scriptFile}`], cwd: home, env: { DSH_HOME: home } }

const nodeBaseline = () =>
  new Promise<number>((done) => {
    const start = performance.now()
    spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("exit", () => done(performance.now() - start))
  })

/** Spawn → handshake → session → prompt → first text delta, in milliseconds. */
const spawnToFirstText = Effect.scoped(Effect.gen(function*() {
  const start = performance.now()
  const first = yield* Deferred.make<number>()
  const client = yield* SdkClient.spawn(serverOptions)
  const session = yield* client.createSession()
  yield* client.prompt({ sessionId: session.id, prompt: "go" }, {
    onEvent: (e) => (e.event.type === "text-delta" ? Deferred.succeed(first, performance.now() - start).pipe(Effect.asVoid) : Effect.void)
  })
  return yield* Deferred.await(first)
})).pipe(Effect.provide(LocalProcessLauncher.layer()))

const pings = (client: SdkClient.SdkClient) =>
  Effect.gen(function*() {
    for (let i = 0; i < 50; i++) yield* client.ping // warm-up
    const times: Array<number> = []
    for (let i = 0; i < PINGS; i++) {
      const start = performance.now()
      yield* client.ping
      times.push(performance.now() - start)
    }
    return times
  })

const overProcess = Effect.scoped(Effect.gen(function*() {
  const client = yield* SdkClient.spawn(serverOptions)
  return yield* pings(client)
})).pipe(Effect.provide(LocalProcessLauncher.layer()))

const inMemory = Effect.scoped(Effect.gen(function*() {
  const toServer = new PassThrough()
  const toClient = new PassThrough()
  const host = {
    createSession: () => Effect.die("unused"),
    loadSession: () => Effect.die("unused"),
    listSessions: Effect.succeed([]),
    prompt: () => Effect.die("unused"),
    // No continuation manager: children cannot be continued or stopped here.
    sendToChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot continue children" })),
    stopChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot stop children" })),
    listChildren: () => Effect.succeed([])
  }
  yield* Effect.forkScoped(SdkServer.serveSdk({ input: toServer, output: toClient }).pipe(Effect.provideService(AgentHost.AgentHost, host)))
  const client = yield* SdkClient.connect({ input: toClient, output: toServer })
  return yield* pings(client)
}))

const main = Effect.gen(function*() {
  const baseline: Array<number> = []
  const child: Array<number> = []
  yield* spawnToFirstText // warm-up (V8 compile cache, file system)
  for (let i = 0; i < SPAWNS; i++) {
    baseline.push(yield* Effect.promise(nodeBaseline))
    child.push(yield* spawnToFirstText)
  }
  const process_ = yield* overProcess
  const memory = yield* inMemory
  const b = median(baseline)
  const c = median(child)
  const rt = median(process_)
  const rtMem = median(memory)
  console.log(`spawn-to-first-text (dsh sdk, scripted model): median ${c.toFixed(1)} ms; node -e 0: median ${b.toFixed(1)} ms; ratio ${(c / b).toFixed(2)}x (target <= 4x), ${SPAWNS} runs`)
  console.log(`round trip (ping over stdio to dsh sdk): median ${(rt * 1000).toFixed(0)} µs, p90 ${(quantile(process_, 0.9) * 1000).toFixed(0)} µs (target < 1 ms), ${PINGS} requests`)
  console.log(`round trip (ping over an in-memory pair): median ${(rtMem * 1000).toFixed(0)} µs, ${PINGS} requests`)
  console.log(JSON.stringify({
    bench: "sdk",
    spawnToFirstTextMs: Number(c.toFixed(1)),
    nodeBaselineMs: Number(b.toFixed(1)),
    ratio: Number((c / b).toFixed(2)),
    ratioTarget: 4,
    roundTripMedianMs: Number(rt.toFixed(3)),
    roundTripP90Ms: Number(quantile(process_, 0.9).toFixed(3)),
    roundTripTargetMs: 1,
    inMemoryRoundTripMedianMs: Number(rtMem.toFixed(3)),
    spawns: SPAWNS,
    pings: PINGS
  }))
})

Effect.runPromise(main).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
