import { Context, Effect, Layer, Option, Semaphore } from "effect"
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
    const waiting = <A, E, R>(effect: Effect.Effect<A, E, R>, onQueued: Effect.Effect<void>) =>
      onQueued.pipe(Effect.andThen(Semaphore.withPermit(semaphore, effect)))
    return {
      // A free slot now runs at once; otherwise `onQueued` first, then the wait for a slot.
      withSlot: (effect, onQueued) =>
        Semaphore.withPermitsIfAvailable(semaphore, 1)(effect).pipe(
          Effect.flatMap((ran) => Option.isSome(ran) ? Effect.succeed(ran.value) : waiting(effect, onQueued))
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
