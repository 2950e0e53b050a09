import { Deferred, Effect, Fiber, Ref } from "effect"
import type { AcceptedRun, SubagentResult } from "../Vocabulary.ts"
import { type Activation, isDetached } from "./activations.ts"

/**
 * Waits for a foreground run that its caller may let go of: its result, or, once
 * `detachChild` moved it to the background, its accepted run at once. The run's fiber lives
 * in the tree's scope (so it outlives a detached caller); interrupting the caller before a
 * detach still stops the child, as for any foreground run.
 */
export const awaitDetachable = (activation: Activation, fiber: Fiber.Fiber<unknown, unknown>): Effect.Effect<SubagentResult | AcceptedRun> =>
  Effect.flatMap(Ref.get(activation.state), ({ detach }) =>
    detach === undefined
      ? Deferred.await(activation.done)
      : Effect.raceFirst(Deferred.await(activation.done), Deferred.await(detach))
  ).pipe(Effect.onInterrupt(() => stopUnlessDetached([[activation, fiber]])))


/** Stops the runs of an interrupted call that were not detached meanwhile. */
export const stopUnlessDetached = (forked: ReadonlyArray<readonly [Activation, Fiber.Fiber<unknown, unknown>]>) =>
  Effect.forEach(forked, ([activation, fiber]) => Effect.flatMap(Ref.get(activation.state), (s) => (isDetached(s.mode) ? Effect.void : Fiber.interrupt(fiber))), {
    concurrency: "unbounded",
    discard: true
  })
