/**
 * `watchState` pushed by PostgreSQL: `updateState` sends `NOTIFY dsh_session_state, '<schema>/<id>'`
 * in its transaction (delivered on commit, to every listening process), and each store keeps one
 * `LISTEN` connection, opened on the first `watchState`, whose notifications it fans out to its
 * watchers. A watcher re-reads the state on each notification for its session. When the listening
 * connection is lost, the store listens again (after a second) and then tells every watcher to
 * re-read, since notifications sent meanwhile were missed.
 */
import { type SessionError, type SessionState } from "@dsh/session"
import { Cause, Deferred, Effect, PubSub, type Scope, Semaphore, Stream } from "effect"
import { type Db, toSessionError } from "./Db.ts"

export const CHANNEL = "dsh_session_state"

/** Published after a reconnect: every watcher re-reads. */
const EVERYONE = ""

/** The payload that names one session of this schema. */
export const payloadOf = (db: Pick<Db, "schema">, sessionId: string): string => `${db.schema}/${sessionId}`

export interface StateHub {
  /** The state of `sessionId` now, then after every change committed by any process. */
  readonly watch: (sessionId: string, read: Effect.Effect<SessionState, SessionError>) => Stream.Stream<SessionState, SessionError>
}

/** The hub of one store; its listener lives in `storeScope`. */
export const makeStateHub = (db: Db, storeScope: Scope.Scope): Effect.Effect<StateHub> =>
  Effect.gen(function*() {
    const pubsub = yield* PubSub.unbounded<string>()
    const guard = yield* Semaphore.make(1)
    /** Completed once the first LISTEN is confirmed; failed (and forgotten) if that fails. */
    let listening: Deferred.Deferred<void, SessionError> | undefined
    const prefix = `${db.schema}/`

    /** One LISTEN session: ends only with an error (the connection was lost). */
    const listenOnce = (ready: Deferred.Deferred<void, SessionError>) =>
      Effect.scoped(Effect.gen(function*() {
        const queue = yield* db.sql.listen(CHANNEL)
        if (!(yield* Deferred.succeed(ready, undefined))) yield* PubSub.publish(pubsub, EVERYONE)
        yield* Stream.fromQueue(queue).pipe(
          Stream.runForEach((n) => n.payload.startsWith(prefix) ? PubSub.publish(pubsub, n.payload) : Effect.void)
        )
      }))

    const keepListening = (ready: Deferred.Deferred<void, SessionError>): Effect.Effect<void> =>
      listenOnce(ready).pipe(Effect.catch((error) =>
        Effect.gen(function*() {
          const mapped = toSessionError(db, "listening for state changes")(error)
          if (!(yield* Deferred.isDone(ready))) {
            // Never listened: the watcher that started us gets the error; the next one tries again.
            listening = undefined
            yield* Deferred.fail(ready, mapped)
            return
          }
          // With the error as the cause: a harness can tell a store failure from other warnings.
          yield* Effect.logWarning(`${mapped.detail}; listening again in a second`, Cause.fail(mapped))
          yield* Effect.sleep("1 second")
          yield* keepListening(ready)
        })
      ))

    const ensureListening = guard.withPermit(Effect.suspend(() => {
      if (listening !== undefined) return Effect.succeed(listening)
      return Effect.gen(function*() {
        const ready = yield* Deferred.make<void, SessionError>()
        listening = ready
        yield* Effect.forkIn(keepListening(ready), storeScope)
        return ready
      })
    })).pipe(Effect.flatMap(Deferred.await))

    const watch: StateHub["watch"] = (sessionId, read) => {
      const mine = payloadOf(db, sessionId)
      return Stream.unwrap(Effect.gen(function*() {
        // Subscribed (and listening) before the first read, so no change falls in between.
        const subscription = yield* PubSub.subscribe(pubsub)
        yield* ensureListening
        return Stream.concat(
          Stream.succeed(EVERYONE),
          Stream.fromSubscription(subscription).pipe(Stream.filter((p) => p === mine || p === EVERYONE))
        ).pipe(
          Stream.mapEffect(() => read),
          // A notification whose change another one already showed reads the same state: skip it.
          Stream.changesWith((a, b) => JSON.stringify(a) === JSON.stringify(b))
        )
      }))
    }

    return { watch }
  })
