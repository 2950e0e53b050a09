/**
 * `watchState` pushed by PostgreSQL: `updateState` sends `NOTIFY dsh_session_state, '<schema>/<id>'`
 * in its transaction (delivered on commit, to every listening process), and each store keeps one
 * `LISTEN` connection, opened on the first `watchState`, whose notifications it fans out to its
 * watchers. A watcher re-reads the state on each notification for its session (only the changes
 * after what its handle saw, see state.ts). When the listening
 * connection is lost, the store listens again (after a second) and then tells every watcher to
 * re-read, since notifications sent meanwhile were missed.
 */
import { type SessionError, type SessionStore } from "@dsh/session"
import { Cause, Deferred, Effect, PubSub, type Scope, Semaphore, Stream } from "effect"
import { type Db, toSessionError } from "./Db.ts"

export const CHANNEL = "dsh_session_state"

/** A state and the number of the last change it includes (see state.ts): what watchers compare. */
export interface Seen {
  readonly state: SessionStore.SessionState
  readonly n: number
}

/** Published after a reconnect: every watcher re-reads. */
const EVERYONE = ""

/** A notification as the hub's watchers get it: its payload and its number among that payload's. */
interface Heard {
  readonly payload: string
  readonly n: number
}

/** The payload that names one session of this schema. */
export const payloadOf = (db: Pick<Db, "schema">, sessionId: string): string => `${db.schema}/${sessionId}`

export interface StateHub {
  /** The state of `sessionId` now, then after every change committed by any process. */
  readonly watch: (sessionId: string, read: Effect.Effect<Seen, SessionError.SessionError>) => Stream.Stream<SessionStore.SessionState, SessionError.SessionError>
}

/** The hub of one store; its listener lives in `storeScope`. */
export const makeStateHub = (db: Db, storeScope: Scope.Scope): Effect.Effect<StateHub> =>
  Effect.gen(function*() {
    const pubsub = yield* PubSub.unbounded<Heard>()
    const guard = yield* Semaphore.make(1)
    /** Completed once the first LISTEN is confirmed; failed (and forgotten) if that fails. */
    let listening: Deferred.Deferred<void, SessionError.SessionError> | undefined
    const prefix = `${db.schema}/`
    /**
     * Notifications seen, by payload, and the read last started for each: a watcher woken by
     * notification `n` reuses a read that began after `n` arrived (it sees that change), so a
     * burst of updates costs each process one read per session, not one per watcher and update.
     */
    const seen = new Map<string, number>()
    const reads = new Map<string, { readonly after: number; readonly state: Deferred.Deferred<Seen, SessionError.SessionError> }>()

    /** One LISTEN session: ends only with an error (the connection was lost). */
    const listenOnce = (ready: Deferred.Deferred<void, SessionError.SessionError>) =>
      Effect.scoped(Effect.gen(function*() {
        const queue = yield* db.sql.listen(CHANNEL)
        if (!(yield* Deferred.succeed(ready, undefined))) yield* PubSub.publish(pubsub, { payload: EVERYONE, n: 0 })
        yield* Stream.fromQueue(queue).pipe(
          Stream.runForEach((heard) => {
            if (!heard.payload.startsWith(prefix)) return Effect.void
            const n = (seen.get(heard.payload) ?? 0) + 1
            seen.set(heard.payload, n)
            return PubSub.publish(pubsub, { payload: heard.payload, n })
          })
        )
      }))

    const keepListening = (ready: Deferred.Deferred<void, SessionError.SessionError>): Effect.Effect<void> =>
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
        const ready = yield* Deferred.make<void, SessionError.SessionError>()
        listening = ready
        yield* Effect.forkIn(keepListening(ready), storeScope)
        return ready
      })
    })).pipe(Effect.flatMap(Deferred.await))

    const sharedRead = (payload: string, upTo: number, read: Effect.Effect<Seen, SessionError.SessionError>) =>
      Effect.suspend(() => {
        const last = reads.get(payload)
        if (last !== undefined && last.after >= upTo) return Deferred.await(last.state)
        return Effect.gen(function*() {
          const state = yield* Deferred.make<Seen, SessionError.SessionError>()
          reads.set(payload, { after: seen.get(payload) ?? 0, state })
          yield* Effect.exit(read).pipe(Effect.flatMap((exit) => Deferred.done(state, exit)))
          return yield* Deferred.await(state)
        }).pipe(Effect.uninterruptible)
      })

    const watch: StateHub["watch"] = (sessionId, read) => {
      const mine = payloadOf(db, sessionId)
      return Stream.unwrap(Effect.gen(function*() {
        // Subscribed (and listening) before the first read, so no change falls in between.
        const subscription = yield* PubSub.subscribe(pubsub)
        yield* ensureListening
        return Stream.concat(
          Stream.succeed<Heard>({ payload: EVERYONE, n: Number.POSITIVE_INFINITY }),
          Stream.fromSubscription(subscription).pipe(Stream.filter((h) => h.payload === mine || h.payload === EVERYONE))
        ).pipe(
          // The first read and a reconnect's read are this watcher's own; others may be shared.
          Stream.mapEffect((h) => (h.payload === EVERYONE ? read : sharedRead(mine, h.n, read))),
          // A notification whose change another one already showed reads the same state (the same
          // change number): skip it. Comparing the states themselves was O(children) per notification.
          Stream.changesWith((a, b) => a.n === b.n),
          Stream.map((seen) => seen.state)
        )
      }))
    }

    return { watch }
  })
