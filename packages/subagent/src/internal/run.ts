import { type Events, Usage } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { Hooks } from "@dsh/tools"
import { Cause, Clock, Duration, Effect, Exit, Option, Ref, Scope } from "effect"
import type { SubagentDescriptor, SubagentResult } from "../Records.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { WorktreeLease } from "../Worktrees.ts"
import type { AgentType, ChildModel, ChildOutcome, ParentInfo, SpawnRequest, StartContext, SubagentProvider } from "../Vocabulary.ts"
import { type Activation, forwardFrom, startSettling } from "./activations.ts"
import { settleMeta } from "./childMeta.ts"
import { chooseChildModel, type ModelCandidate, modelLabel } from "./models.ts"
import { makeOutputCap, type OutputCap, previewOf } from "./outputCap.ts"
import { makeProgress } from "./progress.ts"

const iso = (ms: number) => new Date(ms).toISOString()

export interface RunSpec {
  readonly tree: SubagentTree
  readonly provider: SubagentProvider
  readonly type: AgentType
  readonly handle: string
  readonly runId: string
  readonly request: SpawnRequest
  readonly parent: ParentInfo
  readonly store: SessionStore.ChildStore | undefined
  readonly activation: Activation
  readonly pricing?: Usage.PriceLookup | undefined
  /** `continue` runs the provider's continue hook with this message. */
  readonly message?: string | undefined
  /** On `continue`: the provider's decoded continuation data. */
  readonly continuation?: unknown
  /** A background run's announcement: recorded and queued for the parent when the run ends. */
  readonly announce?: ((result: SubagentResult) => Effect.Effect<void>) | undefined
  /** The child's own git worktree (`isolation: "worktree"`): its cwd; settled when the run ends. */
  readonly worktree?: IsolatedRun | undefined
}

/** A worktree leased for one run, and the scope whose close settles it. */
export interface IsolatedRun {
  readonly lease: WorktreeLease
  readonly scope: Scope.Closeable
}

/** Settles a run's worktree: the descriptor's record and a note for the parent when it is kept. */
const settleWorktree = (w: IsolatedRun) =>
  Effect.gen(function*() {
    const settled = yield* w.lease.settle
    yield* Scope.close(w.scope, Exit.void)
    const { path, branch, repo, base } = w.lease
    const notes = [
      ...(settled.kept ? [`the child's changes are kept in worktree ${path} on branch ${branch} (of ${repo})`] : []),
      ...(settled.notes === undefined ? [] : [settled.notes])
    ]
    return { record: settled.kept ? { path, branch, repo, base } : undefined, notes }
  })

type ContextSpec = Pick<RunSpec, "tree" | "provider" | "type" | "handle" | "runId" | "request" | "parent" | "store" | "activation" | "message" | "continuation" | "worktree"> & {
  /** The model the child runs on (chosen by the process that admitted it). */
  readonly model: ChildModel
  /** The run's output cap: the store and the live events the provider gets pass through it. */
  readonly cap?: OutputCap | undefined
}

/**
 * The provider's `start` (or `continue`, with the spec's message) for one Activation, with the
 * `StartContext` every provider gets; the child's live events feed `progress`.
 */
export const callProvider = (spec: ContextSpec, progress: ReturnType<typeof makeProgress>): Effect.Effect<ChildOutcome> => {
  const { tree, provider, type, handle, runId, request, parent, store, activation, cap } = spec
  const version = provider.continuation?.version ?? 1
  const forward = (event: Events.AgentEvent) => progress.see(event).pipe(Effect.andThen(tree.onChildEvent(handle, event)))
  const context: StartContext = {
    handle,
    runId,
    request,
    type,
    // Every provider runs its child in `parent.cwd`: an isolated child's is its worktree.
    parent: spec.worktree === undefined ? parent : { ...parent, cwd: spec.worktree.lease.cwd },
    model: spec.model,
    store: store === undefined || cap === undefined ? store : cap.gate(store),
    limits: tree.limits,
    sessionId: tree.session?.id,
    lifetime: tree.scope,
    // Past the cap an event is dropped here: the parent holds no more of the child's output.
    onEvent: cap === undefined ? forward : (event: Events.AgentEvent) => (cap.admit(event) ? forward(event) : Effect.void),
    childContext: (child) => tree.childContext(child, tree),
    resolveModel: tree.resolveModel,
    saveContinuation: (data) =>
      tree.descriptors.patch(handle, (d) => ({ ...d, continuation: { provider: provider.name, version, data } })).pipe(
        Effect.ignore({ log: "Warn", message: `could not save ${handle}'s continuation` })
      ),
    continuation: spec.continuation,
    takeMessages: tree.activations.take(handle),
    // Messages that came before the provider could forward them go first, in order.
    forwardMessages: (deliver) => forwardFrom(activation, deliver),
    runTurns: (prompt, turn) => tree.runTurns(handle, prompt, turn)
  }
  return (spec.message !== undefined && provider.continue !== undefined
    ? provider.continue({ ...context, message: spec.message })
    : provider.start(context)
  ).pipe(
    // The child runs under its agent type's own hooks (frontmatter) besides the tree's, whether
    // it was admitted here or is hosted for another process.
    Effect.provideServiceEffect(Hooks.Hooks, Effect.map(Hooks.Hooks, (hooks) => hooks.forAgent(type.name, type.definition.hooks))),
    Effect.withSpan(spec.message !== undefined ? "SubagentProvider.continue" : "SubagentProvider.start", {
      attributes: { provider: provider.name, handle, agent: type.name, runId }
    })
  )
}

export const firstLine = (cause: Cause.Cause<unknown>) => Cause.pretty(cause).split("\n")[0] ?? "unknown cause"

interface ModelChoice {
  readonly chosen: ChildModel
  readonly notes: ReadonlyArray<string>
}

/** What settling a run needs of it. */
interface Settle {
  readonly spec: RunSpec
  readonly progress: ReturnType<typeof makeProgress>
  readonly choice: Ref.Ref<ModelChoice>
  readonly withModel: Effect.Effect<SubagentDescriptor>
  readonly started: number
  readonly emitParent: NonNullable<ParentInfo["onEvent"]>
}

/**
 * The end of an Activation, however it ended: its worktree settled, its final record written,
 * the parent told (event, SubagentStop hooks, announcement), the registry and archive updated.
 */
const finishRun = (settle: Settle, raw: ChildOutcome) =>
  Effect.gen(function*() {
    const { spec, progress, withModel, started, emitParent } = settle
    const { tree, provider, type, handle, runId, parent, store, activation } = spec
    const now = yield* Clock.currentTimeMillis
    const durationMs = now - started
    const noted = yield* progress.fill(raw)
    const isolated = spec.worktree === undefined ? undefined : yield* settleWorktree(spec.worktree)
    const { chosen, notes: modelNotes } = yield* Ref.get(settle.choice)
    const notes = [...modelNotes, ...(noted.notes === undefined ? [] : [noted.notes]), ...(isolated?.notes ?? [])]
    const { notes: _ownNotes, ...bare } = noted
    const filled: ChildOutcome = notes.length === 0 ? bare : { ...bare, notes: notes.join("; ") }
    const cost = yield* progress.cost(filled)
    // The final record is the durable part of a result: if it cannot be written, the run failed.
    const { cost: _previousCost, ...rest } = yield* withModel
    const saved = yield* tree.descriptors.save({
      ...rest,
      status: raw.status,
      updatedAt: iso(now),
      endedAt: iso(now),
      usage: filled.usage,
      lastResult: filled.output.slice(0, 2000),
      ...(cost === undefined ? {} : { cost }),
      ...(isolated?.record === undefined ? {} : { worktree: isolated.record })
    }).pipe(Effect.result)
    const outcome: ChildOutcome = saved._tag === "Success" ? filled : {
      ...filled,
      status: "failed",
      notes: [filled.notes, `the outcome could not be recorded: ${saved.failure.message}`].filter((n) => n !== undefined).join("; ")
    }
    // The parent's record names the child's result; the child's transcript holds all of it.
    const preview = store === undefined ? outcome.output : previewOf(outcome.output, `in ${store.transcript.location}`)
    yield* emitParent({ type: "subagent-end", handle, runId, status: outcome.status, usage: outcome.usage, durationMs, result: preview })
    // Every backend's child ends here, so SubagentStop hooks hear them all (the run is over: they observe).
    const hooks = yield* Hooks.Hooks
    if (hooks.has("SubagentStop") && provider.runsSubagentStop !== true) {
      yield* hooks.run("SubagentStop", { input: { cwd: parent.cwd, agent_id: handle, agent_type: type.name, stop_hook_active: false }, emit: emitParent })
    }
    const { cost: _reported, ...said } = outcome
    const result: SubagentResult = {
      ...said,
      handle,
      runId,
      agent: type.name,
      provider: provider.name,
      durationMs,
      model: chosen.spec,
      ...(cost === undefined ? {} : { cost }),
      ...(store === undefined ? {} : { transcript: store.transcript.location }),
      ...(tree.session === undefined ? {} : { sessionId: tree.session.id })
    }
    // The outcome is recorded (tasks/) before anyone can see the run ended.
    // A run detached from its foreground caller is announced like a background one; from here on it cannot be.
    const detached = yield* startSettling(activation)
    const announce = spec.announce ?? detached
    if (announce !== undefined) yield* announce(result)
    yield* tree.activations.end(activation, result)
    // A settled child may be due for the archive (at once with `cleanup: "delete"`).
    yield* tree.archiver.poke
    return result
  })

/**
 * One Activation of a child, start or continue: lane, timeout, descriptor transitions and the
 * mapping of every ending (success, failure, crash, timeout, interruption) to a result. It
 * never fails; interruption is recorded as `cancelled` exactly once, then propagates. A crash
 * is logged with its full cause once; the parent gets its first line.
 */
export const runActivation = (spec: RunSpec): Effect.Effect<SubagentResult> =>
  Effect.gen(function*() {
    const { tree, provider, type, handle, runId, request, parent, store } = spec
    const descriptor = (): SubagentDescriptor => tree.descriptors.get(handle)!
    const emitParent = parent.onEvent ?? (() => Effect.void)
    // Until the choice is made (an interruption may come first), the parent's model.
    const choice = yield* Ref.make<ModelChoice>({ chosen: { spec: modelLabel(parent.model), model: parent.model }, notes: [] })
    const progress = makeProgress(spec.pricing, () => Ref.getUnsafe(choice).chosen.spec)
    const previous = descriptor()
    // A continued child keeps the model it ran with; a fork always runs on its parent's.
    const candidates: Array<ModelCandidate> = provider.keepsParentModel === true ? [] : [
      ...(spec.message !== undefined && previous.model !== undefined ? [{ source: "previous run" as const, spec: previous.model }] : []),
      ...(request.model !== undefined ? [{ source: "call" as const, spec: request.model }] : []),
      ...(type.definition.model !== undefined ? [{ source: "agent type" as const, spec: type.definition.model }] : []),
      // The requester's default for its own children (openclaw's per-agent `subagents.model`).
      ...(parent.definition.subagentDefaults?.model !== undefined ? [{ source: "requester's subagentDefaults" as const, spec: parent.definition.subagentDefaults.model }] : []),
      ...(tree.childModel !== undefined ? [{ source: "subagents default" as const, spec: tree.childModel }] : [])
    ]
    // A continued child keeps its reasoning effort too, unless the message asks for another.
    const thinking = request.thinking ?? (spec.message !== undefined ? previous.thinking : undefined)
    const runRequest: SpawnRequest = thinking === undefined ? request : { ...request, thinking }
    /** The descriptor with this run's model and reasoning effort (recorded when it runs and when it ends). */
    const withModel = Effect.map(Ref.get(choice), ({ chosen }): SubagentDescriptor => {
      const { thinking: _previousThinking, ...d } = descriptor()
      return { ...d, model: chosen.spec, ...(thinking === undefined ? {} : { thinking }) }
    })
    const started = yield* Clock.currentTimeMillis
    const finished = yield* Ref.make(false)
    const settle: Settle = { spec, progress, choice, withModel, started, emitParent }
    const finish = (raw: ChildOutcome) => Effect.andThen(Ref.set(finished, true), finishRun(settle, raw))

    const body = Effect.gen(function*() {
      // By the child's agent type: a type may have credentials of its own (the harness's per-agent profile).
      const made = yield* chooseChildModel(candidates, parent.model, (s) => tree.resolveModel(s, type.name))
      yield* Ref.set(choice, made)
      const { chosen } = made
      yield* emitParent({
        type: "subagent-start",
        handle,
        agent: type.name,
        provider: provider.name,
        runId,
        background: request.background === true,
        description: request.description
      })
      const hooks = yield* Hooks.Hooks
      if (hooks.has("SubagentStart")) {
        yield* hooks.run("SubagentStart", { input: { cwd: parent.cwd, agent_id: handle, agent_type: type.name, prompt: request.prompt }, emit: emitParent })
      }
      const cap = yield* makeOutputCap(tree.limits.maxChildOutputBytes, handle)
      // Past the cap the child is stopped (its provider's own stop: cancel, then its cleanup) and failed.
      const hook = Effect.raceFirst(
        callProvider({ ...spec, request: runRequest, model: chosen, cap }, progress),
        cap.tripped.pipe(Effect.as<ChildOutcome>({ status: "failed", output: "", usage: Usage.emptyUsage, notes: cap.notes }))
      ).pipe(Effect.tap(() =>
        !cap.isOver() || store === undefined ? Effect.void : Clock.currentTimeMillis.pipe(
          // The provider recorded the stop as a cancellation; every record says how the run really ended.
          Effect.flatMap((now) => settleMeta(store, { status: "failed", endedAt: iso(now), notes: cap.notes })),
          Effect.ignore({ log: "Warn", message: `could not record in ${handle}'s meta.json that it passed the output cap` })
        )
      ))
      const seconds = request.timeoutSeconds ?? tree.limits.timeoutSeconds
      const timeout = seconds > 0 ? Duration.seconds(seconds) : undefined
      const bounded: Effect.Effect<ChildOutcome> = timeout === undefined ? hook : Effect.timeoutOption(hook, timeout).pipe(
        Effect.map((o): ChildOutcome =>
          Option.isSome(o) ? o.value : {
            status: "timeout",
            output: "",
            usage: Usage.emptyUsage,
            notes: `the child did not finish within ${Duration.format(timeout)} and was stopped`
          }
        )
      )
      const outcome = yield* tree.lane.withSlot(
        Effect.gen(function*() {
          // Durable before the child does anything: a crash from here on still shows it (as lost).
          const at = iso(yield* Clock.currentTimeMillis)
          yield* tree.descriptors.save({ ...(yield* withModel), status: "running", updatedAt: at, startedAt: at }).pipe(
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
              Effect.as({ status: "failed", output: "", usage: Usage.emptyUsage, notes: `the child crashed: ${firstLine(exit.cause)}` })
            )
        )
      )
      return yield* finish(outcome)
    })
    return yield* body.pipe(Effect.onInterrupt(() =>
      Effect.flatMap(Ref.get(finished), (done) => done ? Effect.void : finish({ status: "cancelled", output: "", usage: Usage.emptyUsage, notes: "stopped" }).pipe(Effect.asVoid))
    ))
  })
