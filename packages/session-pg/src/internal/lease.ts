/**
 * The ownership lease as a session-level advisory lock (`pg_try_advisory_lock`) held on a
 * connection of its own (`leaseLink.ts`), opened for the lease and closed when it is given up:
 * PostgreSQL releases the lock when that connection ends, so the lease of a process that died
 * (its connections closed) is free again without any liveness check of ours, and the store's pool
 * never lends out a connection that holds a lock. The holder's identity ({pid, host, acquiredAt},
 * with a token of this take) is written to the session's row for others to read; `owner` reports
 * it only while the lock is really held, as `pg_locks` shows. Within one store the lease is shared
 * and counted, like the file store's.
 *
 * The lock ends with its connection even while its holder runs on (a network blip, a terminated
 * backend, a server restart, `idle_session_timeout`). The holder notices at once and takes the
 * lock back on a new connection if nobody took it meanwhile (the row still carries its token);
 * otherwise the lease is lost: `owner` stops reporting this process, and `intact` — which the
 * holder's writes pass — fails with why. Writes wait while the lock is being taken back.
 */
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Deferred, Effect, Exit, Schedule, Scope, Semaphore } from "effect"
import { type Db, lockKey, lockKeyHalves, run } from "./Db.ts"
import { type Link, lockOn } from "./leaseLink.ts"

interface Held {
  readonly owner: SessionStore.SessionOwner
  readonly token: string
  readonly scope: Scope.Closeable
  link: Link
  users: number
  /** Completed once the lock, whose connection ended, is taken back or lost. */
  retaking: Deferred.Deferred<void> | undefined
  /** Why this process no longer holds the lease it took. */
  lost: SessionError.SessionError | undefined
}

export interface Lease {
  readonly acquire: Effect.Effect<SessionStore.SessionOwner, SessionError.SessionError, Scope.Scope>
  readonly owner: Effect.Effect<SessionStore.SessionOwner | undefined, SessionError.SessionError>
  /** Whether this process holds the lease now (some scope of it has not closed). */
  readonly held: Effect.Effect<boolean>
  /** Fails when this process took the lease and lost it since; a write of the session runs after it. */
  readonly intact: Effect.Effect<void, SessionError.SessionError>
}

/** A server restart takes seconds: the lock is tried again for that long before the lease counts as lost. */
const RETAKE = Schedule.exponential("100 millis").pipe(Schedule.upTo({ duration: "10 seconds" }))

const asOwner = (value: unknown): SessionStore.SessionOwner | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const { pid, host, acquiredAt } = value as Record<string, unknown>
  return typeof pid === "number" && typeof host === "string" && typeof acquiredAt === "string" ? { pid, host, acquiredAt } : undefined
}

const describe = (owner: SessionStore.SessionOwner | undefined): string =>
  owner === undefined ? "another process" : `another process (pid ${owner.pid} on ${owner.host}, since ${owner.acquiredAt})`

/** The owner recorded in the row and the backend holding the advisory lock, if some session holds it right now. */
const lockedOwnerOf = (db: Db, sessionId: string, key: string) => {
  const { classid, objid } = lockKeyHalves(key)
  return run(
    db,
    `reading the owner of session "${sessionId}"`,
    db.sql<{ readonly owner: unknown; readonly holder: number | null }>`
      SELECT s.owner, (
        SELECT l.pid FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.classid = ${classid}::oid AND l.objid = ${objid}::oid
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        LIMIT 1
      ) AS holder
      FROM dsh_sessions s WHERE s.id = ${sessionId}`
  ).pipe(Effect.map((rows) => (typeof rows[0]?.holder === "number" ? { owner: asOwner(rows[0].owner), holder: rows[0].holder } : undefined)))
}

/** Why a lease is lost: its connection ended (`why`) and `error` came of taking it back. */
const lostLease = (db: Db, sessionId: string, why: string, error: SessionError.SessionError) =>
  new SessionError.SessionError({
    reason: error.reason === "Owned" ? "Owned" : "Io",
    detail: `${db.target}: this process lost the lease of session "${sessionId}": its connection ended (${why}), and ${
      error.reason === "Owned" ? error.detail : `it could not be taken back (${error.detail})`
    }; check the network to the server and its idle_session_timeout`
  })

/** Who holds the lock now, as a message says it. */
const whoHolds = (lockedOwner: ReturnType<typeof lockedOwnerOf>) => Effect.map(lockedOwner, (current) => describe(current?.owner))

/** Taking a lease's lock back after its connection ended, for `makeLease`. */
const retaker = (db: Db, sessionId: string, key: string, lockedOwner: ReturnType<typeof lockedOwnerOf>) => {
  const someoneElse = whoHolds(lockedOwner)

  /**
   * The lock on a new connection, undefined when another session holds it; retried while the
   * ended connection's backend still does. Its client hears of the end before that backend has
   * exited, and after a network partition the backend may not notice for hours (the server's TCP
   * keepalive): this process ended that connection, so it ends its backend (if the server lets a
   * role end its own backends), named by pid and start time, never another's that reused the pid.
   */
  const lockAgain = (h: Held) =>
    Effect.retry(
      Effect.gen(function*() {
        const link = yield* lockOn(db, sessionId, key, h.scope)
        if (link !== undefined || (yield* lockedOwner)?.holder !== h.link.pid) return link
        yield* run(
          db,
          `ending the lease's old connection of session "${sessionId}"`,
          db.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ${h.link.pid} AND backend_start::text = ${h.link.started}`
        ).pipe(Effect.ignore)
        return yield* new SessionError.SessionError({ reason: "Io", detail: `the ended connection's backend (pid ${h.link.pid}) still holds the lock` })
      }),
      RETAKE
    )

  /** Takes the lock back after its connection ended (`why`), or records the lease as lost. */
  return (h: Held, why: string) =>
    Effect.gen(function*() {
      yield* Scope.close(h.link.scope, Exit.void)
      const link = yield* lockAgain(h)
      if (link === undefined) {
        return yield* new SessionError.SessionError({ reason: "Owned", detail: `${yield* someoneElse} took it meanwhile` })
      }
      // A lock this lease does not keep is given back at once, whatever fails from here on.
      yield* Effect.gen(function*() {
        const rows = yield* link.query(`checking the owner of session "${sessionId}"`, "SELECT owner->>'token' AS token FROM dsh_sessions WHERE id = $1", [sessionId])
        if (rows[0]?.["token"] !== h.token) {
          // Someone took the lease and gave it up meanwhile: what it wrote is not ours to continue.
          return yield* new SessionError.SessionError({ reason: "Owned", detail: "another process ran the session meanwhile" })
        }
      }).pipe(Effect.onError(() => Scope.close(link.scope, Exit.void)))
      h.link = link
    }).pipe(
      Effect.catch((error) => Effect.sync(() => void (h.lost = lostLease(db, sessionId, why, error))))
    )
}

/** `storeScope` is the store's: a lease still held when it closes is given up with it. */
export const makeLease = (db: Db, sessionId: string, storeScope: Scope.Scope): Effect.Effect<Lease> =>
  Effect.gen(function*() {
    const key = lockKey(db, "session", sessionId)
    const lockedOwner = lockedOwnerOf(db, sessionId, key)
    const guard = yield* Semaphore.make(1)
    let held: Held | undefined

    const someoneElse = whoHolds(lockedOwner)

    const retake = retaker(db, sessionId, key, lockedOwner)

    /** The holder's side of the lock's connection: runs for as long as the lease is held. */
    const watch = (h: Held) =>
      Effect.gen(function*() {
        while (h.lost === undefined) {
          const why = yield* h.link.ended
          // Marked and settled in one uninterruptible step: a writer waiting on `retaking` is always woken.
          yield* Effect.uninterruptibleMask((restore) =>
            Effect.gen(function*() {
              const settled = yield* Deferred.make<void>()
              h.retaking = settled
              yield* restore(guard.withPermit(retake(h, why))).pipe(
                Effect.ensuring(Effect.suspend(() => {
                  h.retaking = undefined
                  return Deferred.succeed(settled, undefined)
                }))
              )
            })
          )
        }
      })

    const take = guard.withPermit(Effect.gen(function*() {
      if (held !== undefined) {
        if (held.lost !== undefined) return yield* held.lost
        held.users++
        return held.owner
      }
      const scope = yield* Scope.fork(storeScope)
      const taken = yield* Effect.gen(function*() {
        const link = yield* lockOn(db, sessionId, key, scope)
        if (link === undefined) {
          return yield* new SessionError.SessionError({ reason: "Owned", detail: `session "${sessionId}" is being run by ${yield* someoneElse}` })
        }
        const owner: SessionStore.SessionOwner = { pid: process.pid, host: hostname(), acquiredAt: yield* StoreKit.nowIso }
        const token = randomBytes(8).toString("hex")
        yield* run(
          db,
          `recording the owner of session "${sessionId}"`,
          db.sql`UPDATE dsh_sessions SET owner = ${JSON.stringify({ ...owner, token })}::jsonb WHERE id = ${sessionId}`
        )
        const h: Held = { owner, token, scope, link, users: 1, retaking: undefined, lost: undefined }
        // The store closed under a held lease (its scope ends the lock): nothing is held any more.
        yield* Scope.addFinalizer(scope, Effect.sync(() => {
          if (held === h && h.lost === undefined) {
            h.lost = new SessionError.SessionError({ reason: "Io", detail: `${db.target}: the store was closed while session "${sessionId}" was held` })
          }
        }))
        yield* Effect.forkIn(watch(h), scope)
        return h
      }).pipe(Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))))
      held = taken
      return taken.owner
    }))

    const give = guard.withPermit(Effect.suspend(() => {
      if (held === undefined || --held.users > 0) return Effect.void
      const { token, scope, link, lost } = held
      held = undefined
      // A lost lease has no lock to release, and the row names whoever took it.
      const release = lost !== undefined ? Effect.void : run(
        db,
        `releasing the lease of session "${sessionId}"`,
        db.sql`UPDATE dsh_sessions SET owner = NULL WHERE id = ${sessionId} AND owner->>'token' = ${token}`
      ).pipe(
        // Unlocked before the connection closes, so a taker that comes right after us finds it free.
        Effect.andThen(link.query(`releasing the lease of session "${sessionId}"`, "SELECT pg_advisory_unlock($1::bigint)", [key]))
      )
      return release.pipe(
        Effect.ignore({ log: "Warn", message: `could not release the lease of session "${sessionId}"` }),
        // Closing the lease's connection ends the advisory lock in any case.
        Effect.ensuring(Scope.close(scope, Exit.void))
      )
    }))

    const intact: Effect.Effect<void, SessionError.SessionError> = Effect.suspend(() => {
      if (held === undefined) return Effect.void
      if (held.retaking !== undefined) return Effect.andThen(Deferred.await(held.retaking), intact)
      return held.lost === undefined ? Effect.void : Effect.fail(held.lost)
    })

    return {
      acquire: Effect.acquireRelease(take, () => give),
      owner: Effect.suspend(() =>
        held !== undefined && held.lost === undefined ? Effect.succeed(held.owner) : Effect.map(lockedOwner, (found) => found?.owner)
      ),
      held: Effect.sync(() => held !== undefined),
      intact
    } satisfies Lease
  })
