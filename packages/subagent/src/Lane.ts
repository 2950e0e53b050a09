import { Context, Effect, Semaphore } from "effect"

/**
 * The concurrency lane children wait in. In memory by default; a distributed queue can
 * replace it later, so nothing else assumes an in-memory counter.
 */
export interface LaneShape {
  /** Runs `effect` once a slot is free; `onQueued` runs first if it has to wait. */
  readonly withSlot: <A, E, R>(effect: Effect.Effect<A, E, R>, onQueued: Effect.Effect<void>) => Effect.Effect<A, E, R>
}

export class Lane extends Context.Service<Lane, LaneShape>()("@dsh/subagent/Lane") {}

export const makeMemoryLane = (slots: number): Effect.Effect<LaneShape> =>
  Effect.gen(function*() {
    const semaphore = yield* Semaphore.make(slots)
    let free = slots
    return {
      withSlot: (effect, onQueued) =>
        Effect.suspend(() => (free <= 0 ? onQueued : Effect.void)).pipe(
          Effect.andThen(Semaphore.withPermit(semaphore)(
            Effect.acquireUseRelease(
              Effect.sync(() => free--),
              () => effect,
              () => Effect.sync(() => free++)
            )
          ))
        )
    }
  })
