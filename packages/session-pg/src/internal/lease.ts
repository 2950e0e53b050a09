/**
 * The ownership lease as a session-level advisory lock (`pg_try_advisory_lock`) held on a
 * connection of its own, opened for the lease and closed when it is given up: PostgreSQL releases
 * the lock when that connection ends, so the lease of a process that died (its connections
 * closed) is free again without any liveness check of ours, and the store's pool never lends out
 * a connection that holds a lock. The holder's identity ({pid, host, acquiredAt}) is written to the
 * session's row for others to read; `owner` reports it only while the lock is really held, as
 * `pg_locks` shows. Within one store the lease is shared and counted, like the file store's.
 */
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Effect, Exit, Scope, Semaphore } from "effect"
import { PgClient } from "@effect/sql-pg"
import { Reactivity } from "effect/reactivity"
import { type Db, lockKey, lockKeyHalves, run } from "./Db.ts"

interface Held {
  readonly owner: SessionStore.SessionOwner
  readonly token: string
  readonly scope: Scope.Closeable
  readonly connection: PgClient.PgClient
  users: number
}

export interface Lease {
  readonly acquire: Effect.Effect<SessionStore.SessionOwner, SessionError.SessionError, Scope.Scope>
  readonly owner: Effect.Effect<SessionStore.SessionOwner | undefined, SessionError.SessionError>
  /** Whether this process holds the lease now (some scope of it has not closed). */
  readonly held: Effect.Effect<boolean>
}

const asOwner = (value: unknown): SessionStore.SessionOwner | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const { pid, host, acquiredAt } = value as Record<string, unknown>
  return typeof pid === "number" && typeof host === "string" && typeof acquiredAt === "string" ? { pid, host, acquiredAt } : undefined
}

/** `storeScope` is the store's: a lease still held when it closes is given up with it. */
export const makeLease = (db: Db, sessionId: string, storeScope: Scope.Scope): Effect.Effect<Lease> =>
  Effect.gen(function*() {
    const key = lockKey(db, "session", sessionId)
    const { classid, objid } = lockKeyHalves(key)
    const guard = yield* Semaphore.make(1)
    let held: Held | undefined

    /** The owner recorded in the row, if the advisory lock is held by some session right now. */
    const lockedOwner = run(
      db,
      `reading the owner of session "${sessionId}"`,
      db.sql<{ readonly owner: unknown; readonly locked: boolean }>`
        SELECT s.owner, EXISTS (
          SELECT 1 FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.classid = ${classid}::oid AND l.objid = ${objid}::oid
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        ) AS locked
        FROM dsh_sessions s WHERE s.id = ${sessionId}`
    ).pipe(Effect.map((rows) => (rows[0]?.locked === true ? { owner: asOwner(rows[0].owner) } : undefined)))

    const take = guard.withPermit(Effect.gen(function*() {
      if (held !== undefined) {
        held.users++
        return held.owner
      }
      const scope = yield* Scope.fork(storeScope)
      const taken = yield* Effect.gen(function*() {
        const connection = yield* run(
          db,
          `connecting for the lease of session "${sessionId}"`,
          PgClient.makeClient(db.sql.config).pipe(Effect.provide(Reactivity.layer))
        ).pipe(Scope.provide(scope))
        const rows = yield* run(
          db,
          `taking the lease of session "${sessionId}"`,
          connection<{ readonly locked: boolean }>`SELECT pg_try_advisory_lock(${key}::bigint) AS locked`
        )
        if (rows[0]?.locked !== true) {
          const current = yield* lockedOwner
          const who = current?.owner === undefined
            ? "another process"
            : `another process (pid ${current.owner.pid} on ${current.owner.host}, since ${current.owner.acquiredAt})`
          return yield* new SessionError.SessionError({ reason: "Owned", detail: `session "${sessionId}" is being run by ${who}` })
        }
        const owner: SessionStore.SessionOwner = { pid: process.pid, host: hostname(), acquiredAt: yield* StoreKit.nowIso }
        const token = randomBytes(8).toString("hex")
        yield* run(
          db,
          `recording the owner of session "${sessionId}"`,
          db.sql`UPDATE dsh_sessions SET owner = ${JSON.stringify({ ...owner, token })}::jsonb WHERE id = ${sessionId}`
        )
        return { owner, token, scope, connection, users: 1 } satisfies Held
      }).pipe(Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))))
      held = taken
      return taken.owner
    }))

    const give = guard.withPermit(Effect.suspend(() => {
      if (held === undefined || --held.users > 0) return Effect.void
      const { token, scope, connection } = held
      held = undefined
      return run(
        db,
        `releasing the lease of session "${sessionId}"`,
        db.sql`UPDATE dsh_sessions SET owner = NULL WHERE id = ${sessionId} AND owner->>'token' = ${token}`.pipe(
          // Unlocked before the connection closes, so a taker that comes right after us finds it free.
          Effect.andThen(connection`SELECT pg_advisory_unlock(${key}::bigint)`)
        )
      ).pipe(
        Effect.ignore({ log: "Warn", message: `could not release the lease of session "${sessionId}"` }),
        // Closing the lease's connection ends the advisory lock in any case.
        Effect.ensuring(Scope.close(scope, Exit.void))
      )
    }))

    return {
      acquire: Effect.acquireRelease(take, () => give),
      owner: Effect.suspend(() => held !== undefined ? Effect.succeed(held.owner) : Effect.map(lockedOwner, (found) => found?.owner)),
      held: Effect.sync(() => held !== undefined)
    } satisfies Lease
  })
