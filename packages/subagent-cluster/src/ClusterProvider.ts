import { Ids, Trace, Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import { InheritedDisallow, Permissions } from "@dsh/tools"
import { Clock, Console, Duration, Effect, Fiber, Ref } from "effect"
import type { Sharding } from "effect/cluster"
import { ChildEntity, childEntityId, type OutcomeRecord } from "./ChildEntity.ts"
import { awaitRunnerIfSql, type RunnerWaitOptions, sharedRunnerCount, watchRunners } from "./RunnerPresence.ts"

export interface ClusterProviderOptions extends RunnerWaitOptions {
  /** The provider's name, as agent types name it. Default `cluster`. */
  readonly name?: string | undefined
  /** The provider that runs the children on the runners. Default `spawn` (in process, cold-continuable). */
  readonly runsOn?: string | undefined
  /**
   * How long a stopped child's runner may take to stop it and hand back what it did so far;
   * past it the run is given up here (the runner still stops the child). Default 1 s, so a
   * signal ends a cluster run at once even when the runner is gone.
   */
  readonly stopGrace?: Duration.Input | undefined
}

const failed = (notes: string): Vocabulary.ChildOutcome => ({ status: "failed", output: "", usage: Usage.emptyUsage, notes })

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]

/**
 * The parent's side of cluster children: each run is a persisted `Run` message to the child's
 * entity, answered by the runner that owns its shard. The parent keeps what it always keeps —
 * lane, timeout, descriptor, announcements; stopping the run asks the child's runner to stop
 * it (and whatever it started there) and returns what it did so far. Needs the cluster's
 * `Sharding` (a runner, or a client-only member) and a session shared with the runners.
 */
export const make = (options: ClusterProviderOptions = {}): Effect.Effect<Vocabulary.SubagentProvider, never, Sharding.Sharding> =>
  Effect.gen(function*() {
    const clientFor = yield* ChildEntity.client
    const runsOn = options.runsOn ?? "spawn"
    const grace = Duration.fromInputUnsafe(options.stopGrace ?? "1 second")
    // One notice while children wait for a runner, however many wait at once.
    const noticed = yield* Ref.make(false)
    const waiting: RunnerWaitOptions = {
      liveRunners: yield* sharedRunnerCount,
      ...options,
      onWaiting: (notice) =>
        Ref.getAndSet(noticed, true).pipe(
          Effect.flatMap((told) => told ? Effect.void : options.onWaiting?.(notice) ?? Console.error(notice))
        )
    }
    const ready = awaitRunnerIfSql(waiting).pipe(Effect.tap(() => Ref.set(noticed, false)))
    // While a run waits for its answer: its runner gone with none to take over, or the database gone.
    const lost = watchRunners(waiting).pipe(
      Effect.catch((e) => Effect.succeed(failed(e.message)))
    )

    const runOnce = (context: Vocabulary.StartContext, runId: string, message: string | undefined, late: Array<string>) =>
      Effect.gen(function*() {
        const sessionId = context.sessionId
        if (sessionId === undefined) return failed("cluster children need a session in a store the runners share (--store postgres://…)")
        // Without a live runner the run would wait in the message table for one forever.
        const waited = yield* Effect.result(ready)
        if (waited._tag === "Failure") return failed(waited.failure.message)
        const entity = clientFor(childEntityId(sessionId, context.handle))
        const { request, parent, type } = context
        // The rules this child is decided by travel with it: the runner narrows its own by them.
        const permissions = yield* Permissions.Permissions
        // What its ancestors disallow binds it on the runner too (hidden from its model there).
        const inheritedDisallowed = yield* InheritedDisallow.InheritedDisallowedTools
        // Messages sent while it runs go to its runner; one that arrives after it ended waits for the next run.
        yield* context.forwardMessages((text) =>
          entity.Deliver({ sessionId, handle: context.handle, message: text }).pipe(
            Effect.orElseSucceed(() => false),
            Effect.flatMap((delivered) => (delivered ? Effect.void : Effect.sync(() => late.push(text))))
          ))
        const traceparent = yield* Trace.currentTraceparent
        const call = yield* Effect.forkChild(entity.Run({
          ...(traceparent === undefined ? {} : { traceparent }),
          sessionId,
          handle: context.handle,
          runId,
          agent: type.name,
          provider: runsOn,
          definition: type.definition,
          prompt: request.prompt,
          description: request.description,
          model: request.model,
          childModel: context.model.spec,
          permissions: permissions.configured ? permissions.settings : undefined,
          inheritedDisallowedTools: inheritedDisallowed.length === 0 ? undefined : inheritedDisallowed,
          thinking: request.thinking,
          resultSchema: request.resultSchema,
          message,
          continuation: context.continuation,
          parent: {
            handle: parent.handle,
            depth: parent.depth,
            cwd: parent.cwd,
            model: `${parent.model.provider}:${parent.model.model}`,
            definition: parent.definition
          }
        }))
        const answer = (exit: Fiber.Fiber<OutcomeRecord, unknown>) =>
          Fiber.join(exit).pipe(Effect.catch((e) => Effect.succeed(failed(`the cluster could not run ${context.handle}: ${firstLine(e)}`))))
        return yield* Effect.raceFirst(answer(call), lost).pipe(
          // Stopped or timed out here: the runner stops it and answers the run with what it did so far.
          // Both steps share one grace: a runner that is gone (its shard unassigned) answers neither,
          // and the Stop message would otherwise be retried until a runner takes the shard.
          Effect.onInterrupt(() =>
            Effect.gen(function*() {
              const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(grace)
              yield* entity.Stop({ sessionId, handle: context.handle }).pipe(Effect.timeout(grace), Effect.ignore)
              const left = Effect.map(Clock.currentTimeMillis, (now) => Duration.millis(Math.max(0, deadline - now)))
              const outcome = yield* answer(call).pipe(Effect.timeoutOption(yield* left))
              // Interrupting a persisted call writes to the database, which may be gone: not waited for past the grace.
              if (outcome._tag === "None") return yield* Fiber.interrupt(call).pipe(Effect.timeout(yield* left), Effect.ignore)
              // What the child said and spent reaches the parent's record of the run.
              if (outcome.value.output !== "") {
                yield* context.onEvent({ type: "message", message: { role: "assistant", content: outcome.value.output } })
              }
              if (outcome.value.usage.totalTokens > 0) yield* context.onEvent({ type: "usage", model: "", usage: outcome.value.usage })
            })
          )
        )
      })

    /** A run, then another for messages that arrived after it ended, until none is left. */
    const runAll = (context: Vocabulary.StartContext, first: string | undefined) =>
      Effect.gen(function*() {
        const late: Array<string> = []
        let outcome: Vocabulary.ChildOutcome = yield* runOnce(context, context.runId, first, late)
        let usage = outcome.usage
        while (outcome.status === "completed" && late.length > 0) {
          const next = late.splice(0).join("\n\n")
          outcome = yield* runOnce(context, Ids.makeId(new Date(yield* Clock.currentTimeMillis)), next, late)
          usage = Usage.addUsage(usage, outcome.usage)
        }
        return { ...outcome, usage }
      })

    return {
      specificationVersion: "v1",
      name: options.name ?? "cluster",
      description: `children on the cluster's runners (run there by "${runsOn}")`,
      start: (context) => runAll(context, undefined),
      continue: (context) => runAll(context, context.message)
    } satisfies Vocabulary.SubagentProvider
  })
