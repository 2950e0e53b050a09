/**
 * One body at a time, for work that one caller does for everyone waiting (a group commit of
 * state updates, one INSERT of every transcript's appends), with the waiters on one list per
 * round instead of in a queue on a lock. Effect's `Semaphore` looks at every waiter on each
 * release, and there almost every waiter finds its work done once it gets the permit: with
 * thousands of concurrent appends or state updates in a cluster's parent, that was quadratic
 * (4% of its CPU at 3,000 children). A caller that finds a round under way waits for its end and
 * looks again; by then its work is usually done, or it runs the next round for everyone queued.
 * Not a lock for callers that each have their own work: every round's end wakes all of them.
 */
import { Deferred, Effect } from "effect"

export interface Rounds {
  /** Runs `body` when no other round is under way; other callers wait for it to end. */
  readonly exclusive: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** `exclusive(body)` once `done()` is false when no round is under way; nothing when it is true. */
  readonly unlessDone: <E, R>(done: () => boolean, body: Effect.Effect<void, E, R>) => Effect.Effect<void, E, R>
}

export const makeRounds = (): Rounds => {
  /** The end of the round under way, if any. */
  let current: Deferred.Deferred<void> | undefined

  const unlessDone = <A, E, R>(done: (() => boolean) | undefined, body: Effect.Effect<A, E, R>): Effect.Effect<A | undefined, E, R> =>
    Effect.suspend(() => {
      if (done?.() === true) return Effect.succeed(undefined)
      if (current !== undefined) return Deferred.await(current).pipe(Effect.andThen(unlessDone(done, body)))
      const ended = Deferred.makeUnsafe<void>()
      current = ended
      return body.pipe(Effect.ensuring(Effect.sync(() => {
        current = undefined
        Deferred.doneUnsafe(ended, Effect.void)
      })))
    })

  return {
    exclusive: <A, E, R>(body: Effect.Effect<A, E, R>) => unlessDone(undefined, body) as Effect.Effect<A, E, R>,
    unlessDone: (done, body) => Effect.asVoid(unlessDone(done, body))
  }
}
