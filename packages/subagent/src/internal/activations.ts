import { Deferred, Effect, Fiber } from "effect"
import type { AcceptedRun, SubagentResult } from "../Vocabulary.ts"

/** One running Activation of a child: its fiber, the messages waiting for its next step. */
export interface Activation {
  readonly handle: string
  readonly inbox: Array<string>
  readonly done: Deferred.Deferred<SubagentResult>
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  /** Set by a provider that hands messages to a child running elsewhere (`StartContext.forwardMessages`). */
  forward?: ((message: string) => Effect.Effect<void>) | undefined
  /**
   * Present while a foreground caller waits on this run and would let go of it (`detachChild`):
   * completed with the accepted run when the child is moved to the background.
   */
  detach?: Deferred.Deferred<AcceptedRun> | undefined
  /** Set by `detachChild`: the run's outcome is announced to its parent as a background one's. */
  announce?: ((result: SubagentResult) => Effect.Effect<void>) | undefined
  /** The run is settling (its outcome is being recorded): too late to detach it. */
  settling?: boolean | undefined
}

/**
 * The running Activations of a tree: at most one per child. A message to a child with an
 * Activation is queued in its inbox; a child without one is idle and is continued anew.
 */
export const makeActivations = () => {
  const running = new Map<string, Activation>()
  return {
    get: (handle: string) => running.get(handle),
    /** Registers a new Activation; fails (returns undefined) if the child already has one. */
    begin: (handle: string) =>
      Effect.gen(function*() {
        if (running.has(handle)) return undefined
        const activation: Activation = { handle, inbox: [], done: yield* Deferred.make<SubagentResult>(), fiber: undefined }
        running.set(handle, activation)
        return activation
      }),
    end: (activation: Activation, result: SubagentResult) =>
      Effect.suspend(() => {
        if (running.get(activation.handle) === activation) running.delete(activation.handle)
        return Deferred.succeed(activation.done, result)
      }),
    take: (handle: string) => Effect.sync(() => running.get(handle)?.inbox.splice(0) ?? []),
    handles: () => [...running.keys()]
  }
}

export type Activations = ReturnType<typeof makeActivations>
