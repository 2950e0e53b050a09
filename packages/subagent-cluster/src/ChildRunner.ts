import { Trace, Usage } from "@dsh/core"
import { Records, type Subagents, type Vocabulary } from "@dsh/subagent"
import { InheritedDisallow } from "@dsh/tools"
import { Effect, Layer, Option, Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { ChildEntity, childEntityId, type OutcomeRecord, type Run } from "./ChildEntity.ts"
import { ChildHost } from "./ChildHost.ts"
import { hostedNotice, previousAttempt } from "./internal/resume.ts"

type RunPayload = Rpc.Payload<typeof Run>

const failed = (notes: string): OutcomeRecord => ({ status: "failed", output: "", usage: Usage.emptyUsage, notes })

const decodeMeta = Schema.decodeUnknownResult(Records.ChildMeta)

/**
 * Hosts one run on this runner. A run delivered again after the runner that had it died is
 * recognised by its run id in the child's `meta`: if that attempt ended, its recorded outcome
 * is the answer (nothing runs twice); if it was cut off mid-run, the child is resumed from its
 * persisted transcript, told that it was interrupted and to carry on.
 */
const hostRun = (subagents: Subagents.SubagentsShape, p: RunPayload, runner: string) =>
  Effect.gen(function*() {
    const tree = subagents.tree
    const model = yield* tree.resolveModel(p.parent.model).pipe(Effect.result)
    if (model._tag === "Failure") return failed(`the runner cannot use the parent's model ${p.parent.model}: ${model.failure.message}`)
    const childSpec = p.childModel ?? p.parent.model
    const childModel = childSpec === p.parent.model ? model : yield* tree.resolveModel(childSpec).pipe(Effect.result)
    if (childModel._tag === "Failure") return failed(`the runner cannot use the child's model ${childSpec}: ${childModel.failure.message}`)
    const store = tree.session === undefined ? undefined : Option.getOrUndefined(yield* Effect.option(tree.session.child(p.handle)))
    const meta = store === undefined ? undefined : yield* store.readMeta.pipe(Effect.orElseSucceed(() => undefined))
    const decoded = meta === undefined ? undefined : decodeMeta(meta)
    const attempt = store === undefined ? undefined : yield* previousAttempt(p.runId, decoded?._tag === "Success" ? decoded.success : undefined, store)
    if (attempt?._tag === "Ended") return attempt.outcome
    // Which machine ran which run, in the child's own log (and how a redelivery knows it was begun).
    if (store !== undefined) yield* store.transcript.append({ type: "notice", level: "info", message: hostedNotice(p.runId, runner, attempt?._tag === "CutOff") }).pipe(Effect.ignore)
    const message = attempt?._tag === "CutOff"
      ? `[dsh] The machine that ran you stopped while you were working on this task; your work so far is above. Carry on from where you left off and finish the task:\n\n${p.message ?? p.prompt}`
      : p.message
    const outcome: Vocabulary.ChildOutcome = yield* subagents.host({
      handle: p.handle,
      runId: p.runId,
      type: { name: p.agent, description: p.description, provider: p.provider, definition: p.definition },
      request: {
        prompt: p.prompt,
        description: p.description,
        agent: p.agent,
        model: p.model,
        thinking: p.thinking,
        resultSchema: p.resultSchema
      },
      parent: { handle: p.parent.handle, depth: p.parent.depth, cwd: p.parent.cwd, model: model.success, definition: p.parent.definition },
      model: { spec: childSpec, model: childModel.success },
      message,
      continuation: p.continuation
    }).pipe(Effect.catchTag("SubagentError", (e) => Effect.succeed(failed(e.message))))
    return attempt?._tag === "CutOff"
      ? { ...outcome, notes: [outcome.notes, "resumed on another runner after the one running it stopped"].filter((n) => n !== undefined).join("; ") }
      : outcome
  })

/**
 * The child entity's handlers on a runner: `Run` hosts a run in the session's tree here
 * (runs of one child are sequential: one activation per child), `Deliver` hands a message to
 * the child running here, `Stop` stops it and its descendants held here. Needs `ChildHost`.
 */
export const ChildEntityLive = ChildEntity.toLayer(
  Effect.gen(function*() {
    const host = yield* ChildHost
    const address = yield* Entity.CurrentRunnerAddress
    const runner = `${address.host}:${address.port}`
    // The trees of the runs hosted here now, by entity: where a message or a stop for one goes.
    const hosting = new Map<string, Subagents.SubagentsShape>()
    const key = (p: { readonly sessionId: string; readonly handle: string }) => childEntityId(p.sessionId, p.handle)
    return ChildEntity.of({
      Run: ({ payload }) =>
        Effect.scoped(Effect.gen(function*() {
          const subagents = yield* host.open(payload.sessionId, payload.handle, payload.permissions)
          hosting.set(key(payload), subagents)
          yield* Effect.addFinalizer(() => Effect.sync(() => hosting.get(key(payload)) === subagents && hosting.delete(key(payload))))
          return yield* hostRun(subagents, payload, runner).pipe(
            Effect.provideService(InheritedDisallow.InheritedDisallowedTools, payload.inheritedDisallowedTools ?? []),
            Trace.withTraceparent(payload.traceparent)
          )
        })).pipe(Effect.catchTag("ChildHostError", (e) => Effect.succeed(failed(e.message)))),
      Deliver: ({ payload }) =>
        Rpc.fork(Effect.suspend(() => {
          const tree = hosting.get(key(payload))?.tree
          return tree === undefined ? Effect.succeed(false) : tree.activations.deliver(payload.handle, payload.message)
        })),
      Stop: ({ payload }) =>
        Rpc.fork(Effect.suspend(() => {
          const subagents = hosting.get(key(payload))
          return subagents === undefined ? Effect.succeed([]) : subagents.tree.stopHeld(payload.handle, "user")
        }))
    })
  })
)

/** The entity layer with its host: what a runner process adds to its cluster layer. */
export const layer = <E, R>(host: Layer.Layer<ChildHost, E, R>) => ChildEntityLive.pipe(Layer.provide(host))
