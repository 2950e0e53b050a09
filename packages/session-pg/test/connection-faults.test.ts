// Connection faults of PgSessionStore: a lease whose connection ends (taken back when nobody took
// it meanwhile, lost with failing writes when someone did), and a server that stops answering in
// the middle of an append. Each test failed while the bug it names was there.
import { SessionStore } from "@dsh/session"
import { Samples } from "@dsh/session/testing"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Result } from "effect"
import { PgSessionStore } from "../src/index.ts"
import { clientOf, freshDatabase, makeProxy, pg, singleClient, storeAt, waitUntil } from "./support.ts"


/** The backends holding an advisory lock in this database: the lease's connection. */
const lockHolders = (sql: PgClient.PgClient) =>
  Effect.map(
    sql<{ readonly pid: number }>`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    (rows) => rows.map((r) => r.pid)
  )

const say = (text: string) => ({ type: "notice", level: "info", message: text }) as const

describe.skipIf(pg === undefined)("a PostgreSQL store whose connection fails", () => {
  it.live("a lease whose connection dropped is not handed to a second process while the first still holds it", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const first = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "leased" })
      const second = yield* (yield* storeAt(url)).open("leased")
      yield* Effect.scoped(Effect.gen(function*() {
        const mine = yield* first.acquire
        const [lost] = yield* lockHolders(sql)
        // The first process's lease connection is lost (a network blip, a server-side timeout).
        yield* sql`SELECT pg_terminate_backend(${lost!})`
        // Nobody took the lock meanwhile: the first process takes it back on a new connection.
        yield* waitUntil("the lease is held on a new connection", Effect.map(lockHolders(sql), (pids) => pids.length === 1 && pids[0] !== lost))
        assert.deepStrictEqual(yield* first.owner, mine, "the first process still runs the session")
        const refused = yield* Effect.flip(Effect.scoped(second.acquire))
        assert.strictEqual(refused.reason, "Owned", "a second process must not take the lease while the first one runs the session")
        yield* first.updateState((s) => ({ ...s, counter: 1 }))
      }))
    }))

  it.live("a lease whose connection the client gave up while its backend lives on (a partition) is taken back: that backend is ended", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const proxy = yield* makeProxy(pg!.port)
      const viaProxy = url.replace(`:${pg!.port}/`, `:${proxy.port}/`)
      const first = yield* (yield* storeAt(viaProxy)).create({ ...Samples.sampleSession, id: "partitioned" })
      const second = yield* (yield* storeAt(url)).open("partitioned")
      yield* Effect.scoped(Effect.gen(function*() {
        const mine = yield* first.acquire
        const [old] = yield* lockHolders(sql)
        // The client's side of every connection ends; the server's stays, its backend holding the lock.
        proxy.dropClients()
        yield* waitUntil("the lease is held on a new connection", Effect.map(lockHolders(sql), (pids) => pids.length === 1 && pids[0] !== old))
        const alive = yield* sql<{ readonly n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ${old!}`
        assert.strictEqual(Number(alive[0]!.n), 0, "the old connection's backend was ended")
        assert.deepStrictEqual(yield* first.owner, mine, "the first process still runs the session")
        assert.strictEqual((yield* Effect.flip(Effect.scoped(second.acquire))).reason, "Owned")
        yield* first.updateState((s) => ({ ...s, counter: 1 }))
      }))
    }))

  it.live("a lease taken by another process while its holder's connection was down is lost: the holder's writes fail", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const thief = yield* singleClient(url)
      const first = yield* (yield* storeAt(url)).create({ ...Samples.sampleSession, id: "stolen" })
      yield* Effect.scoped(Effect.gen(function*() {
        const mine = yield* first.acquire
        const [holder] = yield* lockHolders(sql)
        // Another session waits for the lock; when the lease's backend ends, the lock is granted to it at once.
        const waiting = yield* Effect.forkChild(thief`SELECT pg_advisory_lock((l.classid::bigint << 32) | l.objid::bigint)
          FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = ${holder!}`)
        yield* waitUntil("the other session waits for the lock", Effect.map(
          sql<{ readonly n: string }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          (rows) => Number(rows[0]!.n) > 0
        ))
        yield* sql`SELECT pg_terminate_backend(${holder!})`
        yield* Fiber.join(waiting)
        const other = { pid: 1, host: "elsewhere", acquiredAt: "2026-01-01T00:00:00.000Z" }
        yield* thief`UPDATE dsh_sessions SET owner = ${JSON.stringify(other)}::jsonb WHERE id = 'stolen'`
        yield* waitUntil("the first process no longer reports itself", Effect.map(first.owner, (o) => o?.pid === other.pid))
        assert.notDeepEqual(yield* first.owner, mine)
        const update = yield* Effect.flip(first.updateState((s) => ({ ...s, counter: 1 })))
        assert.strictEqual(update.reason, "Owned")
        assert.include(update.message, "lost the lease of session \"stolen\"")
        assert.include(update.message, "postgres://", "the message names the store")
        const append = yield* Effect.flip(first.transcript.append(say("after")))
        assert.strictEqual(append.reason, "Owned")
        assert.strictEqual((yield* Effect.flip(Effect.scoped(first.acquire))).reason, "Owned", "a lost lease is not handed out again")
      }))
    }))

  it.live("a statement that waits long on a server that answers is not cut off", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const sql = yield* clientOf(url)
      const layer = PgSessionStore.layer({ url, unansweredTimeout: "200 millis" })
      const session = yield* Context.get(yield* Layer.build(layer), SessionStore.SessionStore).create({ ...Samples.sampleSession, id: "slow" })
      const locked = yield* Deferred.make<void>()
      const blocked = yield* Deferred.make<void>()
      // Another transaction holds the session's row for a while (a slow statement in it), so the update waits for the row lock.
      const blocker = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT 1 FROM dsh_sessions WHERE id = 'slow' FOR UPDATE`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(blocked)
        yield* sql`SELECT pg_sleep(1.5)`
      })))
      yield* Deferred.await(locked)
      const update = yield* Effect.forkChild(session.updateState((s) => ({ ...s, counter: 1 })))
      yield* waitUntil("the update waits for the row", Effect.map(
        sql<{ readonly n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        (rows) => Number(rows[0]!.n) > 0
      ))
      yield* Deferred.succeed(blocked, undefined)
      yield* Fiber.join(blocker)
      const state = yield* Fiber.join(update)
      assert.strictEqual(state["counter"], 1, "the update waited well past unansweredTimeout and went through")
    }))

  // With `sslmode=prefer` the socket is watched through a stream of its own (the client may hand it to TLS); the server has no TLS, so the client goes on in plain text.
  it.live.each(["", "?sslmode=prefer"])("an append to a server that stopped answering fails with a SessionError instead of hanging (url options: %j)", (query) =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const proxy = yield* makeProxy(pg!.port)
      const layer = PgSessionStore.layer({ url: url.replace(`:${pg!.port}/`, `:${proxy.port}/`) + query })
      const store = Context.get(yield* Layer.build(layer), SessionStore.SessionStore)
      const session = yield* store.create({ ...Samples.sampleSession, id: "silent" })
      yield* session.transcript.append(say("one"))
      // The server's host vanishes (no FIN, no RST): nothing more reaches it.
      proxy.blackhole()
      // Run apart: the append's round is uninterruptible, so a timeout around it could not end it either.
      const ended = yield* Deferred.make<Result.Result<void, unknown>>()
      yield* Effect.forkDetach(Effect.result(session.transcript.append(say("two"))).pipe(Effect.flatMap((r) => Deferred.succeed(ended, r))))
      const outcome = yield* Deferred.await(ended).pipe(Effect.timeoutOption("10 seconds"))
      proxy.close() // the connection ends now, so the append (and the store) can finish
      assert.strictEqual(outcome._tag, "Some", "the append ends (with an error) in bounded time")
      const result = outcome._tag === "Some" ? outcome.value : Result.succeed(undefined)
      assert.isTrue(Result.isFailure(result), "the append fails")
      const error = Result.isFailure(result) ? result.failure as { readonly _tag?: string; readonly reason?: string; readonly message?: string } : {}
      assert.strictEqual(error._tag, "SessionError")
      assert.strictEqual(error.reason, "Io")
      assert.include(error.message, "postgres://", "the message names the store")
      assert.include(error.message, "no answer", "and says what happened")
    }), 30_000)
})
