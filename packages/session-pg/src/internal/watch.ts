/**
 * `watchState` pushed by PostgreSQL: `updateState` sends `NOTIFY dsh_session_state, '<schema>/<id>'`
 * in its transaction (delivered on commit, to every listening process), and each store keeps one
 * `LISTEN` connection, opened on the first `watchState`, whose notifications it fans out to its
 * watchers. A notification of a patch carries it (`<schema>/<id>\n<n>\n<patch>`, when it fits in
 * PostgreSQL's 8,000 bytes): a watcher whose handle saw the change before applies it without a
 * read. Otherwise a watcher re-reads the state (only the changes after what its handle saw, see
 * state.ts): after a fold, a missed change, or a notification of a writer that sends none. When the listening
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

/** A change as its notification carries it: its number and its patch (JSON). */
export interface HeardChange {
  readonly n: number
  readonly patch: string
}

/** A notification as the hub's watchers get it: its session's payload, its number among that payload's, the change when carried. */
interface Heard {
  readonly payload: string
  readonly n: number
  readonly change?: HeardChange | undefined
}

/** The payload that names one session of this schema. */
export const payloadOf = (db: Pick<Db, "schema">, sessionId: string): string => `${db.schema}/${sessionId}`

/** PostgreSQL refuses a notification payload of 8,000 bytes or more. */
const PAYLOAD_LIMIT = 7999

/** The payload of change `n` of a session with its patch, or only the session's when it would not fit. */
export const changePayload = (db: Pick<Db, "schema">, sessionId: string, n: number, patchJson: string): string => {
  const payload = `${payloadOf(db, sessionId)}\n${n}\n${patchJson}`
  return Buffer.byteLength(payload) <= PAYLOAD_LIMIT ? payload : payloadOf(db, sessionId)
}

/** A notification's session payload and the change it carries, if any. */
const parseHeard = (raw: string): { readonly payload: string; readonly change?: HeardChange } => {
  const first = raw.indexOf("\n")
  if (first < 0) return { payload: raw }
  const second = raw.indexOf("\n", first + 1)
  const n = Number(raw.slice(first + 1, second))
  const payload = raw.slice(0, first)
  return second < 0 || !Number.isSafeInteger(n) ? { payload } : { payload, change: { n, patch: raw.slice(second + 1) } }
}

/** How a watcher learns its session's state: by reading it, or from a change it heard. */
export interface StateSource {
  readonly readSeen: Effect.Effect<Seen, SessionError.SessionError>
  readonly advance: (change: HeardChange) => Effect.Effect<Seen | undefined>
}

export interface StateHub {
  /** The state of `sessionId` now, then after every change committed by any process. */
  readonly watch: (sessionId: string, source: StateSource) => Stream.Stream<SessionStore.SessionState, SessionError.SessionError>
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
            const { payload, change } = parseHeard(heard.payload)
            const n = (seen.get(payload) ?? 0) + 1
            seen.set(payload, n)
            return PubSub.publish(pubsub, { payload, n, change })
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

    const watch: StateHub["watch"] = (sessionId, { advance, readSeen: read }) => {
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
          Stream.mapEffect((h) =>
            h.payload === EVERYONE
              ? read
              : h.change === undefined
              ? sharedRead(mine, h.n, read)
              : Effect.flatMap(advance(h.change), (next) => next === undefined ? sharedRead(mine, h.n, read) : Effect.succeed(next))
          ),
          // Change numbers only grow (a fold keeps them), so a state at or below the last one shown
          // is skipped: the same change again, or an older shared read (one that began before this
          // handle learned of a newer change) answering a later notification. Comparing the states
          // themselves was O(children) per notification.
          Stream.mapAccum(() => -1, (shown: number, seen: Seen) => seen.n > shown ? [seen.n, [seen.state]] as const : [shown, []] as const)
        )
      }))
    }

    return { watch }
  })
