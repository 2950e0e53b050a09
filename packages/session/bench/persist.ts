/**
 * Persistence benchmark: a 1,000-turn scripted session through the real FileSessionStore in
 * a temp dir, ten persisted events per turn and one `sync` (write + fdatasync) at every turn
 * end, as the turn loop does. Five runs; prints the median and a JSON line for runners.
 *
 *   node --conditions=@dsh/source packages/session/bench/persist.ts [turns] [runs]
 */
import { mkdtemp, open, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { turnEvents } from "./lib/turns.ts"

const TARGET = 20_000
const turns = Number(process.argv[2] ?? 1000)
const runs = Number(process.argv[3] ?? 5)

const script = Array.from({ length: turns }, (_, i) => turnEvents(i + 1))
const eventsPerRun = script.reduce((n, events) => n + events.length, 0)

/** One run in a fresh home: returns events/s over the appends and syncs, and the file size. */
const runOnce = Effect.scoped(Effect.gen(function*() {
  const home = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-bench-")))
  const store = yield* FileSessionStore.make({ home })
  const handle = yield* store.create({ agent: "coder", cwd: "/work", model: "scripted" })
  const started = performance.now()
  for (const events of script) {
    for (const event of events) yield* handle.transcript.append(event)
    yield* handle.transcript.sync
  }
  const seconds = (performance.now() - started) / 1000
  const { size } = yield* Effect.promise(() => stat(handle.transcript.location))
  const { records, warnings } = yield* handle.transcript.read
  yield* Effect.promise(() => rm(home, { recursive: true, force: true }))
  if (records.length !== eventsPerRun || warnings.length > 0) {
    return yield* Effect.die(`read back ${records.length} of ${eventsPerRun} events, ${warnings.length} warnings`)
  }
  return { eventsPerSecond: eventsPerRun / seconds, bytes: size }
}))

/**
 * The disk's floor for comparison: the same bytes per turn written with one write plus
 * fdatasync on a raw file handle, no store. The store cannot beat this.
 */
const rawFloorMs = async (bytesPerTurn: number): Promise<number> => {
  const home = await mkdtemp(join(tmpdir(), "dsh-bench-raw-"))
  const handle = await open(join(home, "raw.jsonl"), "a")
  const chunk = "x".repeat(bytesPerTurn - 1) + "\n"
  const started = performance.now()
  for (let i = 0; i < turns; i++) {
    await handle.write(chunk)
    await handle.datasync()
  }
  const ms = (performance.now() - started) / turns
  await handle.close()
  await rm(home, { recursive: true, force: true })
  return Math.round(ms * 1000) / 1000
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

const results = []
for (let i = 0; i < runs; i++) results.push(await Effect.runPromise(runOnce))

const eventsPerSecond = Math.round(median(results.map((r) => r.eventsPerSecond)))
const bytesPerEvent = Math.round(median(results.map((r) => r.bytes)) / eventsPerRun)
const ratio = Math.round((eventsPerSecond / TARGET) * 10) / 10
/** Turn latency implied by the median: almost all of it is the turn-end fdatasync. */
const msPerTurn = Math.round((eventsPerRun / turns / eventsPerSecond) * 1000 * 1000) / 1000
const floorMs = await rawFloorMs(Math.round((bytesPerEvent * eventsPerRun) / turns))
const fmt = (n: number) => n.toLocaleString("en-US")

console.log(
  `persist: ${turns} turns, ${eventsPerRun} events, median ${fmt(eventsPerSecond)} events/s ` +
    `(${ratio.toFixed(1)}x the ${fmt(TARGET)} target), ${bytesPerEvent} bytes/event`
)
console.log(
  `persist: ${msPerTurn} ms/turn with one fdatasync per turn; raw write+fdatasync floor on this disk ${floorMs} ms/turn`
)
console.log(JSON.stringify({
  bench: "persist",
  turns,
  events: eventsPerRun,
  runs,
  syncsPerRun: turns,
  medianEventsPerSecond: eventsPerSecond,
  targetEventsPerSecond: TARGET,
  ratioToTarget: ratio,
  bytesPerEvent,
  msPerTurn,
  rawFloorMsPerTurn: floorMs,
  runsEventsPerSecond: results.map((r) => Math.round(r.eventsPerSecond))
}))
