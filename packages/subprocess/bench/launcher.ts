// ProcessLauncher benchmarks: (1) spawn → first stdout byte of `node -e` through the local
// launcher's `spawn`, and (2) a 10 MiB stdout (`head -c`) read through `spawn`'s stdout stream
// and collected by `run`; each against the same child started directly with child_process in
// the same run (the ratio is what the launcher adds: scrubbed env, process group, setpriv,
// watchdog, Stream plumbing). Prints medians and ratios; asserts nothing.
// Run: node --conditions=@dsh/source packages/subprocess/bench/launcher.ts
import { spawn as nodeSpawn } from "node:child_process"
import { Effect, Stream } from "effect"
import { LocalProcessLauncher } from "../src/index.ts"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const BIG = 10 * 1024 * 1024
const launcher = LocalProcessLauncher.make()

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** A handle's stdout: a Stream since the one-primitive launcher, a Node Readable before (for a base run). */
type AnyStdout = Stream.Stream<Uint8Array, unknown> | NodeJS.ReadableStream
const isNode = (s: AnyStdout): s is NodeJS.ReadableStream => typeof (s as { on?: unknown }).on === "function"

const firstByte = (stdout: AnyStdout): Effect.Effect<void, unknown> =>
  isNode(stdout)
    ? Effect.callback<void>((resume) => void stdout.once("data", () => resume(Effect.void)))
    : Effect.scoped(Effect.flatMap(Stream.toPull(stdout), (pull) => Effect.asVoid(pull)))

const countBytes = (stdout: AnyStdout): Effect.Effect<number, unknown> =>
  isNode(stdout)
    ? Effect.callback<number>((resume) => {
      let n = 0
      stdout.on("data", (c: Buffer) => (n += c.length))
      stdout.once("end", () => resume(Effect.succeed(n)))
    })
    : Stream.runFold(stdout, () => 0, (n, c) => n + c.length)

const timed = <E>(effect: Effect.Effect<unknown, E>): Effect.Effect<number, E> =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(effect, () => performance.now() - start)
  })

const direct = (command: string, args: ReadonlyArray<string>, until: "first" | "end") =>
  new Promise<number>((done) => {
    const start = performance.now()
    const child = nodeSpawn(command, args, { stdio: ["ignore", "pipe", "ignore"] })
    let n = 0
    child.stdout.on("data", (c: Buffer) => {
      n += c.length
      if (until === "first" && n === c.length) done(performance.now() - start)
    })
    child.stdout.once("end", () => until === "end" && done(performance.now() - start))
  })

const firstByteArgs = ["-e", "process.stdout.write('x')"]
const bigArgs = ["-c", String(BIG), "/dev/zero"]

const program = Effect.gen(function*() {
  const rows: Array<{ name: string; median: number; baseline: number }> = []
  const measure = function*(name: string, viaLauncher: Effect.Effect<number, unknown>, baseline: () => Promise<number>) {
    const a: Array<number> = []
    const b: Array<number> = []
    yield* viaLauncher // warm-up (execa loads on the first spawn)
    for (let i = 0; i < ROUNDS; i++) {
      b.push(yield* Effect.promise(baseline))
      a.push(yield* viaLauncher)
    }
    rows.push({ name, median: median(a), baseline: median(b) })
  }
  yield* measure(
    "spawn → first stdout byte (node -e)",
    timed(Effect.scoped(Effect.flatMap(launcher.spawn({ command: process.execPath, args: firstByteArgs, stdin: "ignore" }), (c) => firstByte(c.stdout as AnyStdout)))),
    () => direct(process.execPath, firstByteArgs, "first")
  )
  yield* measure(
    "10 MiB stdout through spawn's stream",
    timed(Effect.scoped(Effect.flatMap(launcher.spawn({ command: "head", args: bigArgs, stdin: "ignore" }), (c) => countBytes(c.stdout as AnyStdout)))),
    () => direct("head", bigArgs, "end")
  )
  yield* measure(
    "10 MiB stdout collected by run",
    timed(launcher.run({ command: "head", args: bigArgs, maxOutputBytes: BIG })),
    () => direct("head", bigArgs, "end")
  )
  for (const r of rows) {
    console.log(`${r.name}: median ${r.median.toFixed(1)} ms, child_process ${r.baseline.toFixed(1)} ms, ratio ${(r.median / r.baseline).toFixed(2)}`)
    console.log(JSON.stringify({ bench: "subprocess/launcher", case: r.name, medianMs: r.median, baselineMs: r.baseline, ratio: r.median / r.baseline }))
  }
})

await Effect.runPromise(program)
