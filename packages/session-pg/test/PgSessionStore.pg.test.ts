import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Samples } from "@dsh/session/testing"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import * as Statement from "effect/sql/Statement"
import { PgSessionStore, StoreLayer } from "../src/index.ts"
import { lockKey } from "../src/internal/Db.ts"
import { clientOf, freshSchema, pg, storeAt } from "./support.ts"

const counterOf = (state: SessionStore.SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

/** A port with nothing listening on it. */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
    })
  })
)

describe.skipIf(pg === undefined)("PgSessionStore across processes", () => {
  it.live("two processes doing 100 increments each at once lose none (updateState is one transaction)", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const a = yield* storeAt(url)
      const b = yield* storeAt(url)
      const session = yield* a.create({ ...Samples.sampleSession, id: "counted", extra: { kept: true } })
      const other = yield* b.open("counted")
      const bump = (s: SessionStore.SessionState) => ({ ...s, counter: counterOf(s) + 1 })
      yield* Effect.all([
        Effect.forEach(Array.from({ length: 100 }), () => session.updateState(bump), { concurrency: 8, discard: true }),
        Effect.forEach(Array.from({ length: 100 }), () => other.updateState(bump), { concurrency: 8, discard: true })
      ], { concurrency: 2 })
      const state = yield* session.readState
      assert.strictEqual(counterOf(state), 200, "200 increments from two processes give 200")
      assert.strictEqual(state["kept"], true, "keys the updates kept are preserved")
    }))

  it.live("a change writes one child's record, not the whole state; other processes read the same state across folds", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const writer = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "many" })
      const reader = yield* (yield* storeAt(url)).open("many")
      const sql = yield* clientOf(url)
      const addChild = (i: number) => (s: SessionStore.SessionState) => ({
        ...s,
        subagents: { ...(s["subagents"] as Record<string, unknown> | undefined), [`c-${i}`]: { handle: `c-${i}`, status: "running", note: "x".repeat(200) } }
      })
      const seenByReader: Array<number> = []
      for (let i = 0; i < 600; i++) {
        yield* writer.updateState(addChild(i))
        // The other process reads now and then, so its cached state crosses the folds at 256 and 512.
        if (i % 97 === 0) seenByReader.push(Object.keys((yield* reader.readState)["subagents"] as object).length)
      }
      assert.deepStrictEqual(seenByReader, [1, 98, 195, 292, 389, 486, 583])
      const [row] = yield* sql<{ readonly state_n: string; readonly patch_n: string; readonly patches: string; readonly bytes: number }>`SELECT state_n, patch_n,
        (SELECT count(*) FROM dsh_state_patches WHERE session_id = 'many') AS patches,
        (SELECT max(octet_length(patch::text)) FROM dsh_state_patches WHERE session_id = 'many') AS bytes
        FROM dsh_sessions WHERE id = 'many'`
      assert.strictEqual(Number(row!.patch_n), 600, "one change each")
      assert.strictEqual(Number(row!.state_n), 512, "folded every 256 changes")
      assert.strictEqual(Number(row!.patches), 88, "the changes since the last fold are rows")
      assert.isBelow(Number(row!.bytes), 1000, "a patch holds the one child it changed, not 600 of them")
      const fresh = yield* (yield* storeAt(url)).open("many").pipe(Effect.flatMap((h) => h.readState))
      assert.deepStrictEqual(yield* reader.readState, fresh, "a cached reader and a fresh one agree")
      assert.strictEqual(Object.keys((yield* (yield* storeAt(url)).list)[0]!["subagents"] as object).length, 600, "list applies the patches")
      // The run's end folds: a session at rest is one row.
      yield* writer.updateState((s) => ({ ...s, status: "completed" }))
      const [rest] = yield* sql<{ readonly patches: string }>`SELECT count(*) AS patches FROM dsh_state_patches WHERE session_id = 'many'`
      assert.strictEqual(Number(rest!.patches), 0)
      assert.strictEqual((yield* reader.readState).status, "completed")
    }))

  it.live("40 updates at once (committed in groups): each caller gets the state its own update made, one that throws fails alone", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const session = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "grouped" })
      const bump = (s: SessionStore.SessionState) => ({ ...s, counter: counterOf(s) + 1 })
      const broken = (_: SessionStore.SessionState): SessionStore.SessionState => {
        throw new Error("a bug in one caller's update")
      }
      const results = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => Effect.exit(session.updateState(i === 7 ? broken : bump)),
        { concurrency: "unbounded" }
      )
      const states = results.flatMap((r) => (r._tag === "Success" ? [counterOf(r.value)] : []))
      assert.strictEqual(results.filter((r) => r._tag === "Failure").length, 1, "only the broken update fails")
      assert.deepStrictEqual([...states].sort((a, b) => a - b), Array.from({ length: 39 }, (_, i) => i + 1), "each caller sees the state its own update made")
      assert.strictEqual(counterOf(yield* (yield* storeAt(url)).open("grouped").pipe(Effect.flatMap((h) => h.readState))), 39, "every other update is stored")
    }))

  it.live("watchState is pushed: a change committed by another process arrives without polling", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const owner = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "watched" })
      const requester = yield* (yield* storeAt(url)).open("watched")
      const seen = yield* Deferred.make<void>()
      const fiber = yield* owner.watchState.pipe(
        Stream.tap(() => Deferred.succeed(seen, undefined)),
        Stream.filter((s) => s["request"] === "stop"),
        Stream.runHead,
        Effect.forkChild
      )
      yield* Deferred.await(seen) // the first state: the watcher is listening now
      yield* requester.updateState((s) => ({ ...s, request: "stop" }))
      const got = yield* Fiber.join(fiber)
      assert.strictEqual(got._tag, "Some")
      assert.strictEqual(got._tag === "Some" ? got.value["request"] : undefined, "stop", "the owner sees the other process's change")
    }))

  it.live("a watcher follows changes from their notifications, reading only after a fold or a change too large to carry", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const writer = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "followed" })
      const other = yield* (yield* storeAt(url)).open("followed")
      // Counts the statements a watcher's fiber sends that read the session (effect/sql's own hook).
      const watchCounting = (handle: SessionStore.SessionHandle) =>
        Effect.gen(function*() {
          const reads = { n: 0 }
          const counter: Statement.Transformer = (statement) =>
            Effect.sync(() => {
              if (/FROM dsh_sessions/.test(statement.compile()[0])) reads.n += 1
              return statement
            })
          const first = yield* Deferred.make<void>()
          const fiber = yield* handle.watchState.pipe(
            Stream.tap(() => Deferred.succeed(first, undefined)),
            Stream.takeUntil((s) => s.status === "completed"),
            Stream.runCollect,
            Effect.provideService(Statement.CurrentTransformer, counter),
            Effect.forkChild
          )
          yield* Deferred.await(first)
          return { reads, fiber }
        })
      const mine = yield* watchCounting(writer)
      const theirs = yield* watchCounting(other)
      for (let i = 1; i <= 30; i++) yield* writer.updateState((s) => ({ ...s, counter: i }))
      yield* writer.updateState((s) => ({ ...s, counter: 31, note: "x".repeat(10_000) }))
      yield* writer.updateState((s) => ({ ...s, counter: 32, status: "completed" }))
      for (const watcher of [mine, theirs]) {
        const states = yield* Fiber.join(watcher.fiber)
        const counters = states.map(counterOf)
        assert.deepStrictEqual(counters, [...counters].sort((a, b) => a - b), "states arrive in order")
        assert.strictEqual(counters.at(-1), 32)
        assert.deepStrictEqual(states.at(-1), yield* (yield* storeAt(url)).open("followed").pipe(Effect.flatMap((h) => h.readState)), "the last state is the stored one")
        // The first read, the 10 KB change (over PostgreSQL's 8,000-byte payload) and the fold.
        assert.isAtMost(watcher.reads.n, 3, `reads: ${watcher.reads.n}`)
      }
    }))

  it.live("a transcript read from its start spares the first append's read of the stored seq; a clash with another writer is still renumbered", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const first = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "continued" })
      for (let i = 1; i <= 3; i++) yield* first.transcript.append({ type: "notice", level: "info", message: `from the first store ${i}` })
      const second = yield* (yield* storeAt(url)).open("continued")
      const seqReads = { n: 0 }
      const counter: Statement.Transformer = (statement) =>
        Effect.sync(() => {
          if (/max\(seq\)/.test(statement.compile()[0])) seqReads.n += 1
          return statement
        })
      yield* Effect.gen(function*() {
        assert.strictEqual((yield* second.transcript.read).records.length, 3)
        yield* second.transcript.append({ type: "notice", level: "info", message: "from the second store" })
      }).pipe(Effect.provideService(Statement.CurrentTransformer, counter))
      assert.strictEqual(seqReads.n, 0, "the read told the numbering where the transcript ends")
      // The first store appends again with its own numbering (4, taken): renumbered after the stored end.
      yield* first.transcript.append({ type: "notice", level: "info", message: "from the first store again" })
      const { records } = yield* (yield* (yield* storeAt(url)).open("continued")).transcript.read
      assert.deepStrictEqual(records.map((r) => r.seq), [1, 2, 3, 4, 5])
      assert.deepStrictEqual(records.map((r) => (r.type === "notice" ? r.message : "")).slice(3), ["from the second store", "from the first store again"])
    }))

  it.live("the lease of a process that was killed is free: owner is undefined and another process takes it", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const store = yield* storeAt(url)
      const session = yield* store.create({ ...Samples.sampleSession, id: "orphaned" })
      const child = spawn(process.execPath, ["--conditions=@dsh/source", join(import.meta.dirname, "fixtures", "hold-lease.ts"), url, "orphaned"], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
      const held = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          let out = ""
          child.stdout!.on("data", (c: Buffer) => (out += c.toString()) && out.includes("\n") && resolve(out.trim()))
          child.once("exit", () => resolve(out.trim()))
        })
      )
      assert.strictEqual(held, `held ${child.pid}`)
      assert.strictEqual((yield* session.owner)?.pid, child.pid, "a reader sees the live owner")
      const refused = yield* Effect.flip(Effect.scoped(session.acquire))
      assert.strictEqual(refused.reason, "Owned")
      assert.include(refused.detail, `pid ${child.pid}`, "the refusal names the owner")
      yield* Effect.promise(() => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGKILL"))))
      // PostgreSQL ends the dead process's backend (and its lock) once it sees the socket close.
      // Wait for exactly that: take the advisory lock blocking on a connection of ours, then let it go.
      const sql = yield* clientOf(url)
      const key = lockKey({ schema: (yield* sql<{ readonly s: string }>`SELECT current_schema() AS s`)[0]!.s }, "session", "orphaned")
      yield* sql.withTransaction(sql`SELECT pg_advisory_xact_lock(${key}::bigint)`)
      assert.isUndefined(yield* session.owner, "nobody owns the session once its owner died")
      const taken = yield* Effect.scoped(session.acquire)
      assert.strictEqual(taken.pid, process.pid, "another process takes the lease over")
    }))

  it.live("two processes starting on an empty schema at once migrate it once", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const [a, b] = yield* Effect.all([storeAt(url), storeAt(url)], { concurrency: 2 })
      yield* a.create({ ...Samples.sampleSession, id: "one" })
      assert.deepStrictEqual((yield* b.list).map((s) => s.id), ["one"])
      const sql = yield* clientOf(url)
      const ledger = yield* sql<{ readonly name: string }>`SELECT name FROM dsh_migrations ORDER BY migration_id`
      assert.deepStrictEqual(ledger.map((m) => m.name), ["sessions", "archive", "state_patches"], "each migration is recorded once")
    }))

  it.live("appends from two stores to one transcript keep every event, renumbered after a clash", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const a = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "shared" })
      const b = yield* (yield* storeAt(url)).open("shared")
      const events = Samples.sampleTurnEvents(1)
      for (const [i, event] of events.entries()) yield* (i % 2 === 0 ? a : b).transcript.append(event)
      const { records } = yield* a.transcript.read
      assert.deepStrictEqual(records.map((r) => r.seq), [1, 2, 3, 4, 5, 6])
      assert.deepStrictEqual(records.map((r) => r.type), events.map((e) => e.type))
    }))

  it.live("a state that is not a session's is reported by unreadable, skipped by list, Corrupt on open", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const store = yield* storeAt(url)
      yield* store.create({ ...Samples.sampleSession, id: "fine" })
      yield* store.create({ ...Samples.sampleSession, id: "broken" })
      const sql = yield* clientOf(url)
      yield* sql`UPDATE dsh_sessions SET state = '{"version": 1}'::jsonb WHERE id = 'broken'`
      const fresh = yield* storeAt(url)
      assert.deepStrictEqual((yield* fresh.list).map((s) => s.id), ["fine"])
      const unreadable = yield* fresh.unreadable
      assert.deepStrictEqual(unreadable.map((u) => u.id), ["broken"])
      assert.strictEqual((yield* Effect.flip(fresh.open("broken"))).reason, "Corrupt")
    }))
})

describe.skipIf(pg === undefined)("PgSessionStore locations and errors", () => {
  it.live("locations name the server, database, session and child, never the password", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const store = yield* storeAt(url)
      const session = yield* store.create({ ...Samples.sampleSession, id: "s1" })
      const child = yield* session.child("explore-1")
      const base = `postgres://postgres@127.0.0.1:${pg!.port}/postgres`
      assert.strictEqual(session.location, `${base}#s1`)
      assert.strictEqual(session.transcript.location, `${base}#s1`)
      assert.strictEqual(child.location, `${base}#s1/explore-1`)
      assert.strictEqual(child.transcript.location, `${base}#s1/explore-1`)
      assert.notInclude(session.location, pg!.password)
    }))

  it.live("children appending at once share INSERTs, each append returning once its row is in; a removed session's appends fail alone", () =>
    Effect.gen(function*() {
      const url = yield* freshSchema
      const store = yield* storeAt(url)
      const sql = yield* clientOf(url)
      const busy = yield* store.create({ ...Samples.sampleSession, id: "busy" })
      const gone = yield* store.create({ ...Samples.sampleSession, id: "gone" })
      const children = yield* Effect.forEach(Array.from({ length: 30 }, (_, i) => `c-${i}`), (name) => busy.child(name))
      const say = (text: string) => ({ type: "message", message: { role: "assistant", content: text } }) as const
      const rows = (id: string) => sql<{ readonly n: string; readonly commits: string }>`SELECT count(*) AS n, count(DISTINCT xmin::text) AS commits FROM dsh_events WHERE session_id = ${id}`
      yield* Effect.forEach(children, (c) => Effect.forEach([1, 2, 3], (i) => c.transcript.append(say(`${c.name} ${i}`)), { discard: true }), { concurrency: "unbounded", discard: true })
      const [shared] = yield* rows("busy")
      assert.strictEqual(Number(shared!.n), 90, "every append is in the table when it returns")
      // One INSERT per transcript per event would be 90 commits.
      assert.isBelow(Number(shared!.commits), 30, `90 rows of 30 transcripts in ${shared!.commits} commits`)
      for (const c of children) {
        assert.deepStrictEqual((yield* c.transcript.read).records.map((r) => r.type === "message" ? r.message.content : r.type), [1, 2, 3].map((i) => `${c.name} ${i}`))
      }

      // Another process removes a session while this one still appends to it: only its appends fail.
      yield* sql`DELETE FROM dsh_sessions WHERE id = 'gone'`
      const [lost, ...kept] = yield* Effect.all([
        Effect.exit(gone.transcript.append(say("too late"))),
        ...children.map((c) => Effect.exit(c.transcript.append(say(`${c.name} 4`))))
      ], { concurrency: "unbounded" })
      assert.strictEqual(lost!._tag, "Failure", "the removed session's append fails")
      assert.isTrue(kept.every((e) => e._tag === "Success"), "the other transcripts' appends succeed")
      assert.strictEqual(Number((yield* rows("busy"))[0]!.n), 120)
      const next = yield* Effect.exit(children[0]!.transcript.append(say("after")))
      assert.strictEqual(next._tag, "Success", "later appends of the others are not held up by the failed one")
    }))

  it.live("a server that is not there is one line naming host:port, without the password", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* Effect.flip(Layer.build(PgSessionStore.layer({ url: `postgres://dsh:s3cret@127.0.0.1:${port}/dsh` })))
      assert.strictEqual(error.reason, "Io")
      assert.strictEqual(error.message, `cannot reach PostgreSQL at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port} (store postgres://dsh@127.0.0.1:${port}/dsh: check that PostgreSQL runs there and accepts connections, and the URL)`)
    }))

  it.live("a refused login is one line without the password", () =>
    Effect.gen(function*() {
      const url = pg!.url.replace(`:${pg!.password}@`, ":not-the-password@")
      const error = yield* Effect.flip(Layer.build(PgSessionStore.layer({ url })))
      assert.strictEqual(error.reason, "Io")
      assert.notInclude(error.message, "\n")
      assert.notInclude(error.message, "not-the-password")
      assert.include(error.message, `PostgreSQL at 127.0.0.1:${pg!.port} refused the login`)
    }))

  it.live("storeLayer picks the file store for a directory and this store for a postgres:// URL", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-store-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(home, { recursive: true, force: true })))
      const onDisk = yield* Effect.gen(function*() {
        return (yield* (yield* SessionStore.SessionStore).create(Samples.sampleSession)).location
      }).pipe(Effect.provide(StoreLayer.storeLayer(home)))
      assert.strictEqual(onDisk, join(home, "sessions", onDisk.split("/").pop()!))
      const url = yield* freshSchema
      const inPg = yield* Effect.gen(function*() {
        return (yield* (yield* SessionStore.SessionStore).create(Samples.sampleSession)).location
      }).pipe(Effect.provide(StoreLayer.storeLayer(url)))
      assert.match(inPg, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres#/)
      const bad = yield* Effect.flip(Layer.build(StoreLayer.storeLayer("mysql://x@y/z")))
      assert.strictEqual(bad.message, "session store: must be a directory or a postgres:// URL (got a mysql:// URL)")
      assert.strictEqual((yield* Effect.flip(FileSessionStore.make({ home }).pipe(Effect.flatMap((s) => s.open("nope"))))).reason, "NotFound")
    }))
})
