/**
 * The connection a lease's advisory lock lives on. PostgreSQL frees the lock when that connection
 * ends, so the lease has to learn of the end at once: the connection listens on a channel nobody
 * notifies, because a listener's queue is how the client reports a connection's end (it fails
 * with the error that ended it), without a statement on a timer.
 */
import type { SessionError } from "@dsh/session"
import { PgConnection } from "@effect/sql-pg"
import { Effect, Exit, Queue, Scope } from "effect"
import { causeText, type Db, run } from "./Db.ts"

const WATCH_CHANNEL = "dsh_lease_watch"

export interface Link {
  readonly scope: Scope.Closeable
  /** The backend's process id. */
  readonly pid: number
  /** When that backend started (`pg_stat_activity.backend_start`): with `pid`, names it even after the pid is reused. */
  readonly started: string
  /** A statement on the lock's connection, its failure named by `what`. */
  readonly query: (what: string, sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<PgConnection.Row>, SessionError.SessionError>
  /** Waits until the connection ends and says why; interrupted when `scope` closes first. */
  readonly ended: Effect.Effect<string>
}

/**
 * Opens a connection of its own (in a scope under `parent`) and tries the advisory lock `key` on
 * it: undefined, and the connection closed again, when another session holds it.
 */
export const lockOn = (db: Db, sessionId: string, key: string, parent: Scope.Scope): Effect.Effect<Link | undefined, SessionError.SessionError> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(parent)
    return yield* Effect.gen(function*() {
      const base = yield* run(db, `connecting for the lease of session "${sessionId}"`, PgConnection.make(db.sql.config))
      const connection = yield* base.pin
      const query = (what: string, sql: string, params: ReadonlyArray<unknown>) =>
        run(db, what, Effect.map(connection.query(sql, params), (result) => result.rows))
      // Listening first: once the lock is taken, its end is already watched.
      const ends = yield* run(db, `watching the lease of session "${sessionId}"`, connection.listen(WATCH_CHANNEL))
      const rows = yield* query(
        `taking the lease of session "${sessionId}"`,
        "SELECT pg_try_advisory_lock($1::bigint) AS locked, (SELECT backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS started",
        [key]
      )
      if (rows[0]?.["locked"] !== true) {
        yield* Scope.close(scope, Exit.void)
        return undefined
      }
      const ended = Queue.take(ends).pipe(Effect.forever, Effect.catch((error) => Effect.succeed(causeText(error))))
      return { scope, pid: base.processId, started: String(rows[0]?.["started"] ?? ""), query, ended } satisfies Link
    }).pipe(
      Scope.provide(scope),
      Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
    )
  })
