import { addUsage, type AgentEvent, costOf, emptyUsage, type Pricing, type Usage } from "@dsh/core"
import type { ChildStore } from "@dsh/session"
import { Cause, Clock, Duration, Effect, Exit, Option } from "effect"
import type { SubagentDescriptor, SubagentResult } from "../Records.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AgentType, ChildOutcome, ParentInfo, SpawnRequest, StartContext, SubagentProvider } from "../Vocabulary.ts"
import type { Activation } from "./activations.ts"

const iso = (ms: number) => new Date(ms).toISOString()

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
  /** On `continue`: the provider's decoded continuation data. */
  readonly continuation?: unknown
  /** A background run's announcement: recorded and queued for the parent when the run ends. */
  readonly announce?: ((result: SubagentResult) => Effect.Effect<void>) | undefined
}

/**
 * What a child has said and spent so far, from its live events: the result of a run that was
 * stopped, timed out or crashed is what the child produced up to then, whatever its provider.
 */
export const makeProgress = () => {
  let usage: Usage = emptyUsage
  let lastMessage = ""
  let streaming = ""
  return {
    see: (event: AgentEvent) => {
      switch (event.type) {
        case "usage":
          usage = addUsage(usage, event.usage)
          break
        case "text-delta":
          streaming += event.text
          break
        case "step-start":
          streaming = ""
          break
        case "message":
          if (event.message.role === "assistant") {
            streaming = ""
            if (event.message.content.trim() !== "") lastMessage = event.message.content
          }
          break
      }
    },
    /** An outcome without a result of its own gets what the child said so far. */
    fill: (outcome: ChildOutcome): ChildOutcome => ({
      ...outcome,
      output: outcome.output !== "" ? outcome.output : streaming.trim() !== "" ? streaming : lastMessage,
      usage: outcome.usage.totalTokens > 0 ? outcome.usage : usage
    })
  }
}

type ContextSpec = Pick<RunSpec, "tree" | "provider" | "type" | "handle" | "runId" | "request" | "parent" | "store" | "activation" | "message" | "continuation">

/**
 * The provider's `start` (or `continue`, with the spec's message) for one Activation, with the
 * `StartContext` every provider gets; the child's live events feed `progress`.
 */
export const callProvider = (spec: ContextSpec, progress: ReturnType<typeof makeProgress>): Effect.Effect<ChildOutcome> => {
  const { tree, provider, type, handle, runId, request, parent, store, activation } = spec
  const version = provider.continuation?.version ?? 1
  const context: StartContext = {
    handle,
    runId,
    request,
    type,
    parent,
    store,
    tree,
    onEvent: (event: AgentEvent) => Effect.sync(() => progress.see(event)).pipe(Effect.andThen(tree.onChildEvent(handle, event))),
    childContext: tree.childContext,
    resolveModel: tree.resolveModel,
    saveContinuation: (data) =>
      tree.descriptors.patch(handle, (d) => ({ ...d, continuation: { provider: provider.name, version, data } })).pipe(
        Effect.ignore({ log: "Warn", message: `could not save ${handle}'s continuation` })
      ),
    continuation: spec.continuation,
    takeMessages: tree.activations.take(handle),
    forwardMessages: (deliver) =>
      Effect.gen(function*() {
        activation.forward = deliver
        // Messages that came before the provider could forward them go now, in order.
        for (const message of activation.inbox.splice(0)) yield* deliver(message)
      }),
    runTurns: (prompt, turn) => tree.runTurns(handle, prompt, turn)
  }
  return (spec.message !== undefined && provider.continue !== undefined
    ? provider.continue({ ...context, message: spec.message })
    : provider.start(context)
  ).pipe(Effect.withSpan(spec.message !== undefined ? "SubagentProvider.continue" : "SubagentProvider.start", {
    attributes: { provider: provider.name, handle, agent: type.name, runId }
  }))
}

export const firstLine = (cause: Cause.Cause<unknown>) => Cause.pretty(cause).split("\n")[0] ?? "unknown cause"

/**
 * One Activation of a child, start or continue: lane, timeout, descriptor transitions and the
 * mapping of every ending (success, failure, crash, timeout, interruption) to a result. It
 * never fails; interruption is recorded as `cancelled` exactly once, then propagates. A crash
 * is logged with its full cause once; the parent gets its first line.
 */
export const runActivation = (spec: RunSpec): Effect.Effect<SubagentResult> =>
  Effect.gen(function*() {
    const { tree, provider, type, handle, runId, request, parent, store, activation } = spec
    const descriptor = (): SubagentDescriptor => tree.descriptors.get(handle)!
    const emitParent = parent.onEvent ?? (() => Effect.void)
    const progress = makeProgress()
    const started = yield* Clock.currentTimeMillis
    let finished = false
    const finish = (raw: ChildOutcome) =>
      Effect.gen(function*() {
        finished = true
        const now = yield* Clock.currentTimeMillis
        const durationMs = now - started
        const modelSpec = request.model ?? type.definition.model ?? `${parent.model.provider}:${parent.model.model}`
        const filled = progress.fill(raw)
        // The final record is the durable part of a result: if it cannot be written, the run failed.
        const saved = yield* tree.descriptors.save({
          ...descriptor(),
          status: raw.status,
          updatedAt: iso(now),
          usage: filled.usage,
          lastResult: filled.output.slice(0, 2000)
        }).pipe(Effect.result)
        const outcome: ChildOutcome = saved._tag === "Success" ? filled : {
          ...filled,
          status: "failed",
          notes: [filled.notes, `the outcome could not be recorded: ${saved.failure.message}`].filter((n) => n !== undefined).join("; ")
        }
        const cost = costOf(outcome.usage, spec.pricing?.(modelSpec))
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
        // The outcome is recorded (tasks/) before anyone can see the run ended.
        if (spec.announce !== undefined) yield* spec.announce(result)
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
      const hook = callProvider(spec, progress)
      const seconds = request.timeoutSeconds ?? tree.limits.timeoutSeconds
      const timeout = seconds > 0 ? Duration.seconds(seconds) : undefined
      const bounded: Effect.Effect<ChildOutcome> = timeout === undefined ? hook : Effect.timeoutOption(hook, timeout).pipe(
        Effect.map((o): ChildOutcome =>
          Option.isSome(o) ? o.value : {
            status: "timeout",
            output: "",
            usage: emptyUsage,
            notes: `the child did not finish within ${Duration.format(timeout)} and was stopped`
          }
        )
      )
      const outcome = yield* tree.lane.withSlot(
        Effect.gen(function*() {
          // Durable before the child does anything: a crash from here on still shows it (as lost).
          yield* tree.descriptors.save({ ...descriptor(), status: "running", updatedAt: iso(yield* Clock.currentTimeMillis) }).pipe(
            Effect.ignore({ log: "Warn", message: `could not record that ${handle} runs` })
          )
          return yield* bounded
        }),
        Effect.suspend(() => tree.descriptors.note({ ...descriptor(), status: "queued" }))
      ).pipe(
        Effect.exit,
        Effect.flatMap((exit): Effect.Effect<ChildOutcome> =>
          Exit.isSuccess(exit)
            ? Effect.succeed(exit.value)
            : Cause.hasInterruptsOnly(exit.cause)
            ? Effect.failCause(exit.cause)
            : Effect.logError(`subagent ${handle} crashed`, exit.cause).pipe(
              Effect.as({ status: "failed", output: "", usage: emptyUsage, notes: `the child crashed: ${firstLine(exit.cause)}` })
            )
        )
      )
      return yield* finish(outcome)
    })
    return yield* body.pipe(Effect.onInterrupt(() =>
      finished ? Effect.void : finish({ status: "cancelled", output: "", usage: emptyUsage, notes: "stopped" }).pipe(Effect.asVoid)
    ))
  })
