// Concurrency of the PostgreSQL store under faults a real server shows: a clash on numbers, a reply lost after a commit, an append during an archive, notifications that outrun a read. Triggers and advisory locks set the interleavings; nothing is timed.
import { SessionStore } from "@dsh/session"
import { Samples } from "@dsh/session/testing"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Queue, Stream } from "effect"
import { clientOf, freshDatabase, makeProxy, pg, singleClient, storeAt, waitUntil } from "./support.ts"


/** Someone waits for advisory lock `key` (a small bigint key). */
const waitingFor = (sql: PgClient.PgClient, key: number) =>
  Effect.map(
    sql<{ readonly n: string }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 0 AND objid = ${key}::oid`,
    (rows) => Number(rows[0]!.n) > 0
  )

const say = (text: string) => ({ type: "notice", level: "info", message: text }) as const
const messageOf = (r: { readonly type: string }) => (r as { readonly message?: unknown }).message

const counterOf = (state: SessionStore.SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

describe.skipIf(pg === undefined)("a PostgreSQL store under concurrent writers", () => {
  it.live("an append whose record was renumbered by a failed retry does not report success before its row is in", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const holder = yield* singleClient(url)
      const store = yield* storeAt(url)
      const session = yield* store.create({ ...Samples.sampleSession, id: "renumbered" })
      yield* session.transcript.append(say("one")) // seq 1; this store numbers on from it
      // Another process takes number 2.
      yield* sql`INSERT INTO dsh_events (session_id, agent, seq, record) VALUES ('renumbered', '', 2, '{"seq":2,"ts":"2020-01-01T00:00:00.000Z","type":"notice","level":"info","message":"other"}')`
      // Fault injection: an INSERT of seq 2 waits for the test's lock; one of seq 4 fails (not a unique violation).
      yield* sql.unsafe(`CREATE FUNCTION review_gate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.seq = 2 THEN PERFORM pg_advisory_xact_lock(4242); END IF;
          IF NEW.seq = 4 THEN RAISE EXCEPTION 'review: seq 4 refused'; END IF;
          RETURN NEW;
        END $$`)
      yield* sql.unsafe(`CREATE TRIGGER review_gate BEFORE INSERT ON dsh_events FOR EACH ROW EXECUTE FUNCTION review_gate()`)
      yield* holder`SELECT pg_advisory_lock(4242)`
      // Two appends: one runs the INSERT (seq 2, held at the gate), the other waits for its round (seq 3).
      const fibers = yield* Effect.forEach(["two", "three"], (m) => Effect.forkChild(Effect.exit(session.transcript.append(say(m)))))
      yield* waitUntil("the INSERT waits at the gate", waitingFor(sql, 4242))
      yield* holder`SELECT pg_advisory_unlock(4242)`
      // Unique violation → retried alone → renumbered to 3, 4 → the INSERT of 4 fails.
      const exits = yield* Effect.forEach(fibers, Fiber.join)
      const stored = (yield* sql<{ readonly m: string }>`SELECT record->>'message' AS m FROM dsh_events WHERE session_id = 'renumbered' ORDER BY seq`).map((r) => r.m)
      for (const [i, m] of ["two", "three"].entries()) {
        if (Exit.isSuccess(exits[i]!)) assert.include(stored, m, `the append of "${m}" returned success, so its row must be committed (stored: ${JSON.stringify(stored)})`)
      }
    }))

  it.live("a connection lost right after the shared INSERT committed does not write the events twice", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const proxy = yield* makeProxy(pg!.port)
      const proxied = url.replace(`:${pg!.port}/`, `:${proxy.port}/`)
      const store = yield* storeAt(proxied)
      const session = yield* store.create({ ...Samples.sampleSession, id: "cut" })
      yield* session.transcript.append(say("one"))
      proxy.cutAfterInsert()
      const exit = yield* Effect.exit(session.transcript.append(say("two")))
      assert.strictEqual(proxy.cuts(), 1, "the connection was cut after the INSERT committed")
      const sql = yield* clientOf(url)
      const stored = (yield* sql<{ readonly seq: string; readonly m: string }>`SELECT seq::text AS seq, record->>'message' AS m FROM dsh_events WHERE session_id = 'cut' ORDER BY seq`)
      assert.deepStrictEqual(stored.map((r) => r.m), ["one", "two"], `each event once (append: ${exit._tag}; stored: ${JSON.stringify(stored)})`)
    }))

  it.live("an append committed while the child is being archived is not deleted with the archived rows", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const holder = yield* singleClient(url)
      const store = yield* storeAt(url)
      const session = yield* store.create({ ...Samples.sampleSession, id: "archiving" })
      const child = yield* session.child("c")
      for (const m of ["one", "two", "three"]) yield* child.transcript.append(say(m))
      // Fault injection: the archive's INSERT (after it read the live rows) waits for the test's lock.
      yield* sql.unsafe(`CREATE FUNCTION review_archive_gate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_advisory_xact_lock(4343); RETURN NEW; END $$`)
      yield* sql.unsafe(`CREATE TRIGGER review_archive_gate BEFORE INSERT ON dsh_archive FOR EACH ROW EXECUTE FUNCTION review_archive_gate()`)
      yield* holder`SELECT pg_advisory_lock(4343)`
      const archiving = yield* Effect.forkChild(session.archiveChild("c"))
      yield* waitUntil("the archive waits at the gate", waitingFor(sql, 4343))
      yield* child.transcript.append(say("four")) // returns: its row is committed
      yield* holder`SELECT pg_advisory_unlock(4343)`
      const archived = yield* Fiber.join(archiving)
      assert.isDefined(archived)
      const { records } = yield* child.transcript.read
      assert.deepStrictEqual(records.map(messageOf), ["one", "two", "three", "four"], "the event appended during the archive is kept")
    }))

  it.live("a watcher never goes back to an older state (a shared read started earlier is not newer than what it showed)", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const here = yield* storeAt(url)
      const there = yield* storeAt(url)
      const watched = yield* here.create({ ...Samples.sampleSession, id: "watched" })
      const writer = yield* there.open("watched")
      const probe = yield* here.create({ ...Samples.sampleSession, id: "probe" })
      const probeWriter = yield* there.open("probe")

      // The watcher, paced by the test: after each state it shows, it waits for a go.
      const shown = yield* Queue.unbounded<number>()
      const go = yield* Queue.unbounded<void>()
      yield* Effect.forkChild(watched.watchState.pipe(
        Stream.tap((s) => Queue.offer(shown, counterOf(s)).pipe(Effect.andThen(Queue.take(go)))),
        Stream.runDrain
      ))
      const states: Array<number> = [yield* Queue.take(shown)]
      // A second watcher, on another session: once it hears a change, every notification sent before it was heard too.
      const probeSeen = yield* Queue.unbounded<number>()
      yield* Effect.forkChild(probe.watchState.pipe(Stream.tap((s) => Queue.offer(probeSeen, counterOf(s))), Stream.runDrain))
      yield* Queue.take(probeSeen)

      // Changes 1 and 3 are too large to ride in their notifications; change 2 rides in its own.
      yield* writer.updateState((s) => ({ ...s, counter: 1, note: "x".repeat(10_000) }))
      yield* writer.updateState((s) => ({ ...s, counter: 2 }))
      yield* writer.updateState((s) => ({ ...s, counter: 3, note: "y".repeat(10_000) }))
      yield* probeWriter.updateState((s) => ({ ...s, counter: 1 }))
      while ((yield* Queue.take(probeSeen)) !== 1) { /* until heard */ }

      yield* Queue.offer(go, undefined) // notification 1: a read, which sees change 3
      states.push(yield* Queue.take(shown))
      // Change 4, and this process reads its state (as its owner does).
      yield* writer.updateState((s) => ({ ...s, counter: 4 }))
      assert.strictEqual(counterOf(yield* watched.readState), 4)
      yield* Queue.offer(go, undefined) // notification 2: the handle already saw more, shows that
      states.push(yield* Queue.take(shown))
      // Notification 3 reuses the read of notification 1; then change 5 ends the run.
      yield* Queue.offerAll(go, Array.from({ length: 10 }, () => undefined))
      yield* writer.updateState((s) => ({ ...s, counter: 5 }))
      while (states.at(-1) !== 5) states.push(yield* Queue.take(shown))
      assert.deepStrictEqual(states, [...states].sort((a, b) => a - b), `states shown in order: ${JSON.stringify(states)}`)
    }))
})
