import { costOf, emptyUsage, type Pricing } from "@dsh/core"
import type { AgentEvent } from "@dsh/core"
import type { ChildStore } from "@dsh/session"
import { Cause, Duration, Effect, Exit, Option } from "effect"
import type { SubagentTree } from "../SubagentTree.ts"
import type {
  AgentType,
  ChildOutcome,
  ParentInfo,
  SpawnRequest,
  StartContext,
  SubagentDescriptor,
  SubagentProvider,
  SubagentResult
} from "../Vocabulary.ts"
import type { Activation } from "./activations.ts"

const now = () => new Date().toISOString()

export interface RunSpec {
  readonly tree: SubagentTree
  readonly provider: SubagentProvider
  readonly type: AgentType
  readonly handle: string
  readonly runId: string
  readonly request: SpawnRequest
  readonly parent: ParentInfo
  readonly store: ChildStore | undefined
  readonly activation: Activation
  readonly pricing?: ((modelSpec: string) => Pricing | undefined) | undefined
  /** `continue` runs the provider's continue hook with this message. */
  readonly message?: string | undefined
}

/**
 * One Activation of a child, start or continue: lane, timeout, descriptor transitions and the
 * mapping of every ending (success, failure, crash, timeout, interruption) to a result. It
 * never fails; interruption is recorded as `cancelled` exactly once, then propagates.
 */
export const runActivation = (spec: RunSpec): Effect.Effect<SubagentResult> =>
  Effect.gen(function*() {
    const { tree, provider, type, handle, runId, request, parent, store, activation } = spec
    const descriptor = (): SubagentDescriptor => tree.descriptors.get(handle)!
    const emitParent = parent.onEvent ?? (() => Effect.void)
    const started = Date.now()
    let finished = false
    const finish = (outcome: ChildOutcome) =>
      Effect.gen(function*() {
        finished = true
        const durationMs = Date.now() - started
        const spec2 = request.model ?? type.definition.model ?? `${parent.model.provider}:${parent.model.model}`
        const cost = costOf(outcome.usage, spec.pricing?.(spec2))
        yield* tree.descriptors.save({
          ...descriptor(),
          status: outcome.status,
          updatedAt: now(),
          usage: outcome.usage,
          lastResult: outcome.output.slice(0, 2000)
        })
        yield* emitParent({ type: "subagent-end", handle, runId, status: outcome.status, usage: outcome.usage, durationMs, result: outcome.output })
        const result: SubagentResult = {
          ...outcome,
          handle,
          runId,
          agent: type.name,
          provider: provider.name,
          durationMs,
          ...(cost === undefined ? {} : { cost }),
          ...(store === undefined ? {} : { transcript: store.transcript.location })
        }
        yield* tree.activations.end(activation, result)
        return result
      })

    const body = Effect.gen(function*() {
      yield* emitParent({
        type: "subagent-start",
        handle,
        agent: type.name,
        provider: provider.name,
        runId,
        background: request.background === true,
        description: request.description
      })
      const context: StartContext = {
        handle,
        runId,
        request,
        type,
        parent,
        store,
        onEvent: (event: AgentEvent) => tree.onChildEvent(handle, event),
        childContext: tree.childContext,
        resolveModel: tree.resolveModel,
        saveContinuation: (version, data) =>
          Effect.suspend(() => tree.descriptors.save({ ...descriptor(), continuation: { provider: provider.name, version, data } })),
        continuation: descriptor().continuation,
        takeMessages: tree.activations.take(handle)
      }
      const hook = spec.message !== undefined && provider.continue !== undefined
        ? provider.continue({ ...context, message: spec.message })
        : provider.start(context)
      const timeout = Duration.seconds(request.timeoutSeconds ?? tree.limits.timeoutSeconds)
      const outcome = yield* tree.lane.withSlot(
        Effect.suspend(() => tree.descriptors.note({ ...descriptor(), status: "running", updatedAt: now() })).pipe(
          Effect.andThen(Effect.timeoutOption(hook, timeout)),
          Effect.map((o): ChildOutcome =>
            Option.isSome(o) ? o.value : {
              status: "timeout",
              output: "",
              usage: emptyUsage,
              notes: `the child did not finish within ${Duration.format(timeout)} and was stopped`
            }
          )
        ),
        Effect.suspend(() => tree.descriptors.note({ ...descriptor(), status: "queued" }))
      ).pipe(
        Effect.exit,
        Effect.flatMap((exit): Effect.Effect<ChildOutcome> =>
          Exit.isSuccess(exit)
            ? Effect.succeed(exit.value)
            : Cause.hasInterruptsOnly(exit.cause)
            ? Effect.failCause(exit.cause)
            : Effect.succeed({ status: "failed", output: "", usage: emptyUsage, notes: `the child crashed: ${Cause.pretty(exit.cause).split("\n")[0]}` })
        )
      )
      return yield* finish(outcome)
    })
    return yield* body.pipe(Effect.onInterrupt(() =>
      finished ? Effect.void : finish({ status: "cancelled", output: "", usage: emptyUsage, notes: "stopped" }).pipe(Effect.asVoid)
    ))
  })
