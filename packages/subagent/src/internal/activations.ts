import { Deferred, Effect, Fiber, Ref } from "effect"
import type { AcceptedRun, SubagentResult } from "../Vocabulary.ts"

/** Hands a message to a child running elsewhere (`StartContext.forwardMessages`). */
export type Forward = (message: string) => Effect.Effect<void>
/** Announces a run's outcome to its parent as a background run's. */
export type Announce = (result: SubagentResult) => Effect.Effect<void>

/**
 * Who hears a run's outcome: its caller (`Attached`), or, once `detachChild` let it go, its
 * parent as a background one's (`Detached`). `Settling`: the outcome is being recorded, too
 * late to detach it; `detached` says whether it was.
 */
export type Mode =
  | { readonly _tag: "Attached" }
  | { readonly _tag: "Detached"; readonly announce: Announce }
  | { readonly _tag: "Settling"; readonly detached: boolean }

/** What changes in an Activation, as one value: each check-and-set on it is one `Ref.modify`. */
export interface ActivationState {
  /** Messages waiting for the child's next step. */
  readonly inbox: ReadonlyArray<string>
  /** Set by a provider that forwards messages; from then on a message goes there, not to the inbox. */
  readonly forward: Forward | undefined
  readonly fiber: Fiber.Fiber<unknown, unknown> | undefined
  /**
   * Present while a foreground caller waits on this run and would let go of it (`detachChild`):
   * completed with the accepted run when the child is moved to the background.
   */
  readonly detach: Deferred.Deferred<AcceptedRun> | undefined
  readonly mode: Mode
}

/** One running Activation of a child: its changing state in one `Ref`, and its result. */
export interface Activation {
  readonly handle: string
  readonly done: Deferred.Deferred<SubagentResult>
  readonly state: Ref.Ref<ActivationState>
}

const ATTACHED: Mode = { _tag: "Attached" }

/** Whether the run was let go of by its caller (its outcome is announced, its fiber is not stopped with the caller). */
export const isDetached = (mode: Mode) => mode._tag === "Detached" || (mode._tag === "Settling" && mode.detached)

/** Whether a foreground caller waits on this run and would let go of it, and it is not settling yet. */
export const isDetachable = (s: ActivationState) => s.detach !== undefined && s.mode._tag === "Attached"

/** Sets the fiber or the detach handle (set once, before anyone reads them). */
export const setFiber = (a: Activation, fiber: Fiber.Fiber<unknown, unknown>) => Ref.update(a.state, (s) => ({ ...s, fiber }))
export const makeDetachable = (a: Activation) =>
  Effect.flatMap(Deferred.make<AcceptedRun>(), (detach) => Effect.as(Ref.update(a.state, (s) => ({ ...s, detach })), detach))

/** Moves an attached, detachable run to the background: its detach handle, or undefined when too late or not detachable. */
export const detachRun = (a: Activation, announce: Announce) =>
  Ref.modify(a.state, (s): readonly [Deferred.Deferred<AcceptedRun> | undefined, ActivationState] => (isDetachable(s) ? [s.detach, { ...s, mode: { _tag: "Detached", announce } }] : [undefined, s]))

/** Starts settling: whoever announces the outcome (if a detach came first), and no detach after it. */
export const startSettling = (a: Activation) =>
  Ref.modify(a.state, (s): readonly [Announce | undefined, ActivationState] => {
    const announce = s.mode._tag === "Detached" ? s.mode.announce : undefined
    return [announce, { ...s, mode: { _tag: "Settling", detached: isDetached(s.mode) } }]
  })

/** Forwards the message, or queues it, decided at once: no message slips between the two. */
const deliverTo = (a: Activation, message: string) =>
  Effect.flatMap(
    Ref.modify(a.state, (s): readonly [Forward | undefined, ActivationState] => (s.forward !== undefined ? [s.forward, s] : [undefined, { ...s, inbox: [...s.inbox, message] }])),
    (forward) => (forward === undefined ? Effect.void : forward(message))
  )

const drain = (a: Activation) => Ref.modify(a.state, (s): readonly [ReadonlyArray<string>, ActivationState] => [s.inbox, { ...s, inbox: [] }])

/**
 * From now on messages go to `deliver`. Those queued before go first, in order: the inbox is
 * drained until empty, and only an empty inbox switches to forwarding.
 */
export const forwardFrom = (a: Activation, deliver: Forward): Effect.Effect<void> =>
  Effect.flatMap(
    Ref.modify(a.state, (s): readonly [ReadonlyArray<string>, ActivationState] => (s.inbox.length === 0 ? [[], { ...s, forward: deliver }] : [s.inbox, { ...s, inbox: [] }])),
    (queued) => (queued.length === 0 ? Effect.void : Effect.andThen(Effect.forEach(queued, deliver, { discard: true }), forwardFrom(a, deliver)))
  )

/**
 * The running Activations of a tree: at most one per child. A message to a child with an
 * Activation is queued in its inbox; a child without one is idle and is continued anew.
 */
export const makeActivations = () => {
  const running = new Map<string, Activation>()
  const onEnd: Array<(handle: string) => void> = []
  return {
    /** Tells `f` the handle of every Activation that ends from now on (after it is no longer running). */
    onEnd: (f: (handle: string) => void) => void onEnd.push(f),
    get: (handle: string) => running.get(handle),
    /** Registers a new Activation; fails (returns undefined) if the child already has one. */
    begin: (handle: string) =>
      Effect.gen(function*() {
        if (running.has(handle)) return undefined
        const initial: ActivationState = { inbox: [], forward: undefined, fiber: undefined, detach: undefined, mode: ATTACHED }
        const activation: Activation = { handle, done: yield* Deferred.make<SubagentResult>(), state: Ref.makeUnsafe(initial) }
        running.set(handle, activation)
        return activation
      }),
    end: (activation: Activation, result: SubagentResult) =>
      Effect.suspend(() => {
        if (running.get(activation.handle) === activation) {
          running.delete(activation.handle)
          for (const f of onEnd) f(activation.handle)
        }
        return Deferred.succeed(activation.done, result)
      }),
    /** Hands a message to the child's running Activation (forwarded or queued): false when it has none. */
    deliver: (handle: string, message: string) =>
      Effect.suspend(() => {
        const activation = running.get(handle)
        return activation === undefined ? Effect.succeed(false) : Effect.as(deliverTo(activation, message), true)
      }),
    /** The messages queued for the child's next step, taken from its inbox. */
    take: (handle: string) =>
      Effect.suspend(() => {
        const activation = running.get(handle)
        return activation === undefined ? Effect.succeed<ReadonlyArray<string>>([]) : drain(activation)
      }),
    /** The child's state now, if it runs. */
    state: (handle: string) =>
      Effect.suspend(() => {
        const activation = running.get(handle)
        return activation === undefined ? Effect.succeed(undefined) : Ref.get(activation.state)
      }),
    handles: () => [...running.keys()]
  }
}

export type Activations = ReturnType<typeof makeActivations>
