import { Usage } from "@dsh/core"
import { Cause, Clock, Effect, Exit, Fiber } from "effect"
import type { SubagentResult } from "../Records.ts"
import { SubagentError } from "../SubagentError.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AgentType, ChildModel, ChildOutcome, ParentInfo, SpawnRequest, SubagentProvider } from "../Vocabulary.ts"
import { setFiber } from "./activations.ts"
import { makeProgress } from "./progress.ts"
import { callProvider, firstLine } from "./run.ts"

/** A child another process admitted, to be run here (see `SubagentsShape.host`). */
export interface HostRequest {
  readonly handle: string
  readonly runId: string
  readonly type: AgentType
  readonly request: SpawnRequest
  readonly parent: ParentInfo
  /** The model the child runs on, as the admitting process chose it. */
  readonly model: ChildModel
  /** Continue with this message instead of starting. */
  readonly message?: string | undefined
  readonly continuation?: unknown
}

/**
 * One Activation of a child admitted elsewhere: the provider's start or continue in this tree
 * (so messages, stops and the child's own delegation work here), ending however the run ends
 * — a stop here (`stopHeld`) included — with an outcome that carries what the child said and
 * spent so far. Lane, timeout and the child's descriptor belong to the admitting process.
 */
export const hostActivation = (tree: SubagentTree, provider: SubagentProvider, spec: HostRequest): Effect.Effect<ChildOutcome, SubagentError> =>
  Effect.gen(function*() {
    const { handle } = spec
    const activation = yield* tree.activations.begin(handle)
    if (activation === undefined) {
      return yield* Effect.fail(new SubagentError({ reason: "InvalidRequest", message: `${handle} is already running in this process` }))
    }
    const store = tree.session === undefined ? tree.memoryStores.get(handle) : yield* tree.session.child(handle).pipe(
      Effect.mapError((e) => new SubagentError({ reason: "InvalidRequest", message: `cannot open ${handle}'s store: ${e.message}` })),
      Effect.onError(() => tree.activations.end(activation, ended(spec, { status: "failed", output: "", usage: Usage.emptyUsage }, 0)))
    )
    const progress = makeProgress()
    const started = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(callProvider({ ...spec, tree, provider, store, activation }, progress))
    yield* setFiber(activation, fiber)
    const exit = yield* Fiber.await(fiber).pipe(Effect.onInterrupt(() =>
      Fiber.interrupt(fiber).pipe(
        Effect.andThen(Clock.currentTimeMillis),
        Effect.flatMap((now) =>
          Effect.flatMap(progress.fill({ status: "cancelled", output: "", usage: Usage.emptyUsage, notes: "stopped" }), (o) => tree.activations.end(activation, ended(spec, o, now - started)))
        )
      )
    ))
    const raw: ChildOutcome = Exit.isSuccess(exit)
      ? exit.value
      : Cause.hasInterruptsOnly(exit.cause)
      ? { status: "cancelled", output: "", usage: Usage.emptyUsage, notes: "stopped" }
      : { status: "failed", output: "", usage: Usage.emptyUsage, notes: `the child crashed: ${firstLine(exit.cause)}` }
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) yield* Effect.logError(`subagent ${handle} crashed`, exit.cause)
    const outcome = yield* progress.fill(raw)
    yield* tree.activations.end(activation, ended(spec, outcome, (yield* Clock.currentTimeMillis) - started))
    return outcome
  }).pipe(Effect.withSpan("Subagents.host", { attributes: { handle: spec.handle, runId: spec.runId } }))

const ended = (spec: HostRequest, outcome: ChildOutcome, durationMs: number): SubagentResult => ({
  ...outcome,
  handle: spec.handle,
  runId: spec.runId,
  agent: spec.type.name,
  provider: spec.type.provider,
  durationMs
})
