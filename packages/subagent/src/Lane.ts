import { Context, Effect, Layer, Semaphore } from "effect"
import { SubagentLimits } from "./Limits.ts"

/**
 * The concurrency lane children wait in. In memory by default; a distributed queue can
 * replace it (a cluster-wide lane), so nothing else assumes an in-memory counter.
 */
export interface LaneShape {
  /** Runs `effect` once a slot is free; `onQueued` runs first if it has to wait. */
  readonly withSlot: <A, E, R>(effect: Effect.Effect<A, E, R>, onQueued: Effect.Effect<void>) => Effect.Effect<A, E, R>
}

export const makeMemory = (slots: number): Effect.Effect<LaneShape> =>
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

/**
 * The lane service. Trees take it from their context; without one, each tree makes an
 * in-memory lane of `SubagentLimits.maxConcurrent` slots.
 */
export class Lane extends Context.Service<Lane, LaneShape>()("@dsh/subagent/Lane") {}

/** One in-memory lane shared by every tree built under it, sized by `SubagentLimits`. */
export const layerMemory: Layer.Layer<Lane> = Layer.effect(
  Lane,
  Effect.gen(function*() {
    const limits = yield* SubagentLimits
    return Lane.of(yield* makeMemory(limits.maxConcurrent))
  })
)
