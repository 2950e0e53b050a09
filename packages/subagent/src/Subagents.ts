import type { AgentDefinition, TurnResult } from "@dsh/agent"
import { makeId, makeRegistry, type NamedRegistry, type PriceLookup, type RegistryError } from "@dsh/core"
import { Clock, Context, Deferred, type Duration, Effect, Exit, type Fiber, Schema, Scope } from "effect"
import type { Activation } from "./internal/activations.ts"
import { awaitDetachable, stopUnlessDetached } from "./internal/detachable.ts"
import { toAgentType } from "./internal/dynamicTypes.ts"
import { hostActivation, type HostRequest } from "./internal/host.ts"
import { type IsolatedRun, runActivation, type RunSpec } from "./internal/run.ts"
import type { SubagentDescriptor, SubagentResult } from "./Records.ts"
import { SubagentError } from "./SubagentError.ts"
import { checkSpecification, type ProviderVersionError } from "./Specification.ts"
import type { SubagentTree } from "./SubagentTree.ts"
import type { AcceptedRun, AgentType, ChildOutcome, ParentInfo, SpawnRequest, SubagentProvider, TurnRunner } from "./Vocabulary.ts"

export type { HostRequest } from "./internal/host.ts"

/** One request of a batch (`spawnAll`), in order: its result, its accepted background run, or why it did not start. */
export type BatchEntry =
  | { readonly _tag: "Settled"; readonly result: SubagentResult }
  | { readonly _tag: "Accepted"; readonly run: AcceptedRun }
  | { readonly _tag: "Refused"; readonly error: SubagentError }

/** What a message to a child led to: queued for its running Activation, or a reply. */
export type SendOutcome =
  | { readonly _tag: "Queued"; readonly handle: string }
  | { readonly _tag: "Replied"; readonly result: SubagentResult }
  | { readonly _tag: "Accepted"; readonly run: AcceptedRun }

/**
 * `ctx.subagents`: the backends (providers) and agent types that exist in one agent
 * context, over the tree the context belongs to, plus the continuation manager's
 * operations on children (continue, stop, list, wait, announcements).
 */
export interface SubagentsShape {
  readonly tree: SubagentTree
  readonly providers: NamedRegistry<SubagentProvider>
  readonly types: NamedRegistry<AgentType>
  readonly register: (provider: SubagentProvider) => Effect.Effect<void, RegistryError | ProviderVersionError, Scope.Scope>
  /** Agent types this parent may delegate to here: allowed by its definition and backed by a provider. */
  readonly availableTypes: (parent: ParentInfo) => Effect.Effect<ReadonlyArray<AgentType>>
  /** Runs a child to its end. Refusals are typed errors; a child's failure is a result. */
  readonly spawn: (request: SpawnRequest, parent: ParentInfo) => Effect.Effect<SubagentResult, SubagentError>
  /**
   * `spawn` for a caller that can let go of the child: its result, or its accepted run as soon
   * as `detachChild` moves it to the background (then its outcome is announced to the parent).
   */
  readonly spawnDetachable: (request: SpawnRequest, parent: ParentInfo) => Effect.Effect<SubagentResult | AcceptedRun, SubagentError>
  /** Starts a child in the background; its outcome is announced to the parent. */
  readonly spawnBackground: (request: SpawnRequest, parent: ParentInfo) => Effect.Effect<AcceptedRun, SubagentError>
  /**
   * Starts one child per request at once (a swarm): refused as a whole when a type is unknown
   * or not allowed, or the session has no room for all of them (`max_children`); otherwise
   * admitted in order (handles follow the requests), run through the lane, and returned in
   * order when all have settled (or, with `background`, accepted at once and each announced).
   */
  readonly spawnAll: (
    requests: ReadonlyArray<SpawnRequest>,
    parent: ParentInfo,
    /** `detachable`: a foreground item `detachChild` may move to the background (then `Accepted`). */
    options?: { readonly background?: boolean | undefined; readonly detachable?: boolean | undefined }
  ) => Effect.Effect<ReadonlyArray<BatchEntry>, SubagentError>
  /**
   * Continues a child by its handle: queued for its next step when it is running; a new
   * Activation (warm, or cold from disk) when it is idle. `from` must be an ancestor
   * (`user` may reach any child).
   */
  readonly send: (
    handle: string,
    message: string,
    from: ParentInfo | "user",
    /** `detachable`: a foreground reply `detachChild` may turn into `Accepted` (as for `spawnDetachable`). */
    options?: { readonly background?: boolean; readonly detachable?: boolean }
  ) => Effect.Effect<SendOutcome, SubagentError>
  /** Stops a child and all of its descendants (`all`: every child `from` may reach) that this process runs. */
  readonly stop: (handle: string, from: string) => Effect.Effect<ReadonlyArray<string>, SubagentError>
  /** Children `from` may reach (its descendants; every child for `user`/`main`). */
  readonly list: (from: string) => ReadonlyArray<SubagentDescriptor>
  /**
   * Waits for background runs of `from` to end, up to a timeout: the given handles, or every
   * background run whose outcome `from` has not had yet. An outcome returned here is
   * delivered: it is never announced as well.
   */
  readonly wait: (from: string, handles: ReadonlyArray<string> | undefined, timeout: Duration.Input) => Effect.Effect<ReadonlyArray<SubagentResult | SubagentDescriptor>, SubagentError>
  /**
   * Runs agent `handle`'s turns with background delegation: announcements before each model
   * call, woken by outcomes, finished only when its background children have settled.
   */
  readonly runTurns: <E>(handle: string, prompt: string, turn: TurnRunner<E>) => Effect.Effect<TurnResult, E>
  /**
   * Runs a child that another process admitted and recorded (a cluster runner hosting it for
   * the session's owner), on the provider its type names: an Activation of this tree, so
   * messages, stops and the child's own delegation work here. The admitting process keeps the
   * lane, the timeout and the child's descriptor.
   */
  readonly host: (request: HostRequest) => Effect.Effect<ChildOutcome, SubagentError>
  /** Every type name in use here (static and runtime-created): what a new name must not clash with. */
  readonly typeNames: Effect.Effect<ReadonlyArray<string>>
}

/** The `ctx.subagents` of the calling agent's context. */
export class Subagents extends Context.Service<Subagents, SubagentsShape>()("@dsh/subagent/Subagents") {}

export interface SubagentsOptions {
  readonly tree: SubagentTree
  readonly providers?: ReadonlyArray<SubagentProvider> | undefined
  readonly types?: ReadonlyArray<AgentType> | undefined
  /** Prices by model spec: results, descriptors and announcements then carry a cost. */
  readonly pricing?: PriceLookup | undefined
  /** The provider runtime-created types run on (default `spawn`). */
  readonly dynamicProvider?: string | undefined
}

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
const refuse = (reason: SubagentError["reason"], message: string) => Effect.fail(new SubagentError({ reason, message }))

/** Who continues a child when the user (not an agent) sends it a message. */
const userParent = (d: SubagentDescriptor, tree: SubagentTree): ParentInfo => ({
  handle: d.parent,
  depth: d.depth - 1,
  cwd: tree.cwd,
  model: tree.defaultModel,
  definition: { name: d.parent, description: "", systemPrompt: "", override: false, scope: "runtime", source: "user" } satisfies AgentDefinition
})

export const makeSubagents = (options: SubagentsOptions): Effect.Effect<SubagentsShape, RegistryError | ProviderVersionError> =>
  Effect.gen(function*() {
    const { tree } = options
    const providers = yield* makeRegistry<SubagentProvider>("subagent provider")
    const types = yield* makeRegistry<AgentType>("agent type")
    for (const p of options.providers ?? []) yield* providers.registerPermanent(p.name, yield* checkSpecification(p))
    for (const t of options.types ?? []) yield* types.registerPermanent(t.name, t)

    const dynamicProvider = options.dynamicProvider ?? "spawn"
    /** Static types first; a runtime-created type never shadows one. */
    const allTypes = Effect.gen(function*() {
      const statics = (yield* types.entries).map(([, t]) => t)
      const names = new Set(statics.map((t) => t.name))
      return [...statics, ...tree.dynamicTypes.all().filter((d) => !names.has(d.name)).map((d) => toAgentType(d, dynamicProvider))]
    })
    const findType = (name: string) => Effect.map(allTypes, (all) => all.find((t) => t.name === name))
    const allows = (parent: ParentInfo, type: string) => parent.definition.subagents === undefined || parent.definition.subagents.includes(type)

    const availableTypes = (parent: ParentInfo) =>
      Effect.gen(function*() {
        const all = yield* allTypes
        const backed = new Set(yield* providers.names)
        // Code-point order, as agent files are discovered: `localeCompare` would load ICU's
        // collation on the first prompt (~10 ms) and depend on the machine's locale.
        return all.filter((t) => backed.has(t.provider) && allows(parent, t.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      })

    const resolveType = (request: SpawnRequest, parent: ParentInfo) =>
      Effect.gen(function*() {
        const names = (yield* availableTypes(parent)).map((t) => t.name).join(", ") || "(none)"
        const type = yield* findType(request.agent)
        if (type === undefined) return yield* refuse("UnknownType", `unknown agent type "${request.agent}"; available: ${names}`)
        if (!allows(parent, type.name)) {
          return yield* refuse("NotAllowed", `${parent.handle} may not delegate to "${type.name}"; allowed: ${names}`)
        }
        const provider = yield* Effect.orElseSucceed(providers.get(type.provider), () => undefined)
        if (provider === undefined) {
          return yield* refuse("Unsupported", `agent type "${type.name}" needs the "${type.provider}" backend, which this context does not have; available: ${names}`)
        }
        if (parent.depth + 1 > tree.limits.maxDepth) {
          return yield* refuse("DepthLimit", `nesting depth limit reached (${tree.limits.maxDepth}); do this task yourself`)
        }
        if (request.prompt.trim() === "") return yield* refuse("InvalidRequest", "the prompt is empty; say what the child should do")
        return { type, provider }
      })

    const childStore = (handle: string) =>
      tree.session === undefined ? Effect.succeed(tree.memoryStores.get(handle)) : tree.session.child(handle).pipe(
        Effect.mapError((e) => new SubagentError({ reason: "InvalidRequest", message: `cannot open ${handle}'s store: ${e.message}` }))
      )

    /**
     * The child's own git worktree when its call or its type asks for one: made before anything
     * is recorded (a refusal leaves no trace), in a scope of the tree's that its run settles.
     */
    const isolate = (request: SpawnRequest, type: AgentType, parent: ParentInfo, handle: string) =>
      Effect.gen(function*() {
        if (request.isolation !== "worktree" && type.definition.isolation !== "worktree") return undefined
        const worktrees = tree.worktrees
        if (worktrees === undefined) return yield* refuse("Isolation", `${type.name} asks for a git worktree, which this context cannot make`)
        const scope = yield* Scope.fork(tree.scope)
        const lease = yield* worktrees.acquire({ cwd: parent.cwd, session: tree.session?.id ?? "memory", handle }).pipe(
          Scope.provide(scope),
          Effect.mapError((e) => new SubagentError({ reason: "Isolation", message: e.message })),
          Effect.onError(() => Scope.close(scope, Exit.void))
        )
        return { lease, scope } satisfies IsolatedRun
      })

    /** Everything a new child needs before its first Activation: handle, store, worktree, descriptor. */
    const admit = (request: SpawnRequest, parent: ParentInfo) =>
      Effect.gen(function*() {
        const { type, provider } = yield* resolveType(request, parent)
        yield* tree.reserveChild
        const handle = yield* tree.allocateHandle(type.name)
        const runId = makeId(new Date(yield* Clock.currentTimeMillis))
        const store = yield* childStore(handle)
        const worktree = yield* isolate(request, type, parent, handle)
        const at = yield* isoNow
        yield* tree.descriptors.note({
          handle,
          agent: type.name,
          provider: provider.name,
          parent: parent.handle,
          depth: parent.depth + 1,
          status: "queued",
          description: request.description,
          runId,
          createdAt: at,
          updatedAt: at,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          background: request.background === true,
          queuedAt: at,
          ...(request.cleanup === undefined ? {} : { cleanup: request.cleanup }),
          ...(store === undefined ? {} : { transcript: store.transcript.location })
        })
        const activation = (yield* tree.activations.begin(handle))!
        return { type, provider, handle, runId, store, activation, worktree }
      })

    /** Runs an Activation in a fiber of its own (so one child can be stopped alone). */
    const activate = (spec: RunSpec, background: boolean, detachable = false) =>
      Effect.gen(function*() {
        const run = runActivation({ ...spec, pricing: options.pricing })
        // Background runs belong to the tree, not to the task that started them: they outlive
        // the call, so their spans start a trace of their own linked to it (OpenTelemetry's way).
        const caller = yield* Effect.option(Effect.currentSpan)
        const traced = background
          ? run.pipe(Effect.withSpan(`background ${spec.handle}`, {
            root: true,
            links: caller._tag === "Some" ? [{ span: caller.value, attributes: { "dsh.link": "started-by" } }] : [],
            attributes: { "dsh.agent.handle": spec.handle, "dsh.run_id": spec.runId }
          }))
          : run
        // A detachable foreground run lives in the tree's scope too: it may outlive its caller.
        const fiber = background || detachable ? yield* Effect.forkIn(traced, tree.scope) : yield* Effect.forkChild(traced)
        spec.activation.fiber = fiber
        return fiber
      })

    /**
     * Records a background run as started; the run's own cleanup finishes the record (so it is
     * written however the run ends, shutdown included) and announces the outcome.
     */
    const announced = (parentHandle: string, agent: string, handle: string, runId: string) =>
      Effect.gen(function*() {
        const base = { runId, handle, agent, parent: parentHandle, createdAt: yield* isoNow, delivered: false }
        yield* tree.announcements.started({ ...base, status: "running" })
        return (result: SubagentResult) =>
          Effect.flatMap(isoNow, (endedAt) => tree.announcements.finished({ ...base, status: result.status, endedAt, result }))
      })

    const spawn: SubagentsShape["spawn"] = Effect.fn("Subagents.spawn")(function*(request, parent) {
      const a = yield* admit({ ...request, background: false }, parent)
      yield* activate({ tree, ...a, request, parent }, false)
      return yield* Deferred.await(a.activation.done)
    })

    const spawnDetachable: SubagentsShape["spawnDetachable"] = Effect.fn("Subagents.spawn")(function*(request, parent) {
      const a = yield* admit({ ...request, background: false }, parent)
      a.activation.detach = yield* Deferred.make<AcceptedRun>()
      // No interruption between the fork and the wait that stops the child when interrupted.
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(activate({ tree, ...a, request, parent }, false, true), (fiber) => restore(awaitDetachable(a.activation, fiber)))
      )
    })

    const spawnBackground: SubagentsShape["spawnBackground"] = Effect.fn("Subagents.spawnBackground")(function*(request, parent) {
      const a = yield* admit({ ...request, background: true }, parent)
      const announce = yield* announced(parent.handle, a.type.name, a.handle, a.runId)
      yield* activate({ tree, ...a, request: { ...request, background: true }, parent, announce }, true)
      return { status: "accepted", runId: a.runId, handle: a.handle } satisfies AcceptedRun
    })

    const spawnAll: SubagentsShape["spawnAll"] = Effect.fn("Subagents.spawnAll")(function*(requests, parent, batchOptions) {
      const background = batchOptions?.background === true
      // Refused as a whole before anything starts: an unknown or forbidden type, or no room.
      for (const request of requests) yield* resolveType(request, parent)
      const room = yield* tree.childCapacity
      if (requests.length > room) {
        return yield* refuse(
          "ChildLimit",
          `${requests.length} children do not fit: this session has room for ${room} more (max_children ${tree.limits.maxChildren}); use fewer items or continue existing children`
        )
      }
      // Detachable items run in the tree's scope: if this call is interrupted (before or while
      // it waits), those not detached are stopped, as child fibers of the call would be.
      const forked: Array<readonly [Activation, Fiber.Fiber<unknown, unknown>]> = []
      return yield* Effect.gen(function*() {
        const admitted: Array<Effect.Effect<BatchEntry>> = []
        for (const request of requests) {
          const a = yield* admit({ ...request, background }, parent).pipe(Effect.result)
          if (a._tag === "Failure") {
            admitted.push(Effect.succeed({ _tag: "Refused", error: a.failure }))
            continue
          }
          const { activation, handle, runId, type } = a.success
          if (background) {
            const announce = yield* announced(parent.handle, type.name, handle, runId)
            yield* activate({ tree, ...a.success, request: { ...request, background: true }, parent, announce }, true)
            admitted.push(Effect.succeed({ _tag: "Accepted", run: { status: "accepted", runId, handle } }))
          } else if (batchOptions?.detachable === true) {
            activation.detach = yield* Deferred.make<AcceptedRun>()
            const fiber = yield* activate({ tree, ...a.success, request: { ...request, background: false }, parent }, false, true)
            forked.push([activation, fiber])
            admitted.push(Effect.map(awaitDetachable(activation, fiber), (r): BatchEntry => (r.status === "accepted" ? { _tag: "Accepted", run: r } : { _tag: "Settled", result: r })))
          } else {
            yield* activate({ tree, ...a.success, request: { ...request, background: false }, parent }, false)
            admitted.push(Effect.map(Deferred.await(activation.done), (result) => ({ _tag: "Settled", result })))
          }
        }
        return yield* Effect.all(admitted, { concurrency: "unbounded" })
      }).pipe(Effect.onInterrupt(() => stopUnlessDetached(forked)))
    })

    const known = (handle: string, from: string) =>
      Effect.gen(function*() {
        // A child admitted by another process sharing the session (a runner) is learnt from the store.
        if (tree.descriptors.get(handle) === undefined) yield* tree.descriptors.refresh.pipe(Effect.ignore)
        const d = tree.descriptors.get(handle)
        if (d === undefined) {
          const mine = tree.descriptors.all().filter((x) => tree.isReachable(x.handle, from)).map((x) => x.handle)
          return yield* refuse("UnknownHandle", `no child is named "${handle}"; yours: ${mine.join(", ") || "(none)"}`)
        }
        if (!tree.isReachable(handle, from)) return yield* refuse("NotOwner", `"${handle}" is not a descendant of ${from}`)
        return d
      })

    /** The provider's saved data for `d`, checked and decoded; providers without a Schema get it as stored. */
    const continuationOf = (provider: SubagentProvider, d: SubagentDescriptor) =>
      Effect.gen(function*() {
        const spec = provider.continuation
        if (spec === undefined) return d.continuation?.data
        const saved = d.continuation
        const invalid = (why: string) => refuse("InvalidContinuation", `${d.handle} cannot be continued: ${why}`)
        if (saved === undefined) return yield* invalid(`no ${provider.name} continuation was saved for it`)
        if (saved.provider !== provider.name) return yield* invalid(`its continuation belongs to "${saved.provider}", not "${provider.name}"`)
        if (saved.version !== spec.version) return yield* invalid(`its continuation is version ${saved.version}; "${provider.name}" reads version ${spec.version}`)
        const decoded = Schema.decodeUnknownResult(spec.schema)(saved.data)
        if (decoded._tag === "Failure") return yield* invalid(`its saved continuation is malformed: ${decoded.failure.message.split("\n")[0]}`)
        return decoded.success
      })

    const send: SubagentsShape["send"] = (handle, message, from, sendOptions) =>
      Effect.gen(function*() {
        const fromHandle = from === "user" ? "user" : from.handle
        const d = yield* known(handle, fromHandle)
        const running = tree.activations.get(handle)
        if (running !== undefined) {
          if (running.forward !== undefined) yield* running.forward(message)
          else running.inbox.push(message)
          return { _tag: "Queued", handle } satisfies SendOutcome
        }
        const provider = yield* Effect.orElseSucceed(providers.get(d.provider), () => undefined)
        if (provider?.continue === undefined) {
          return yield* refuse("Unsupported", `${handle} ran on "${d.provider}", which cannot be continued here`)
        }
        const continuation = yield* continuationOf(provider, d)
        if (provider.checkContinue !== undefined) {
          yield* provider.checkContinue({ handle, lifetime: tree.scope, continuation }).pipe(
            Effect.mapError((why) => new SubagentError({ reason: "Unsupported", message: `${handle} cannot be continued: ${why}` }))
          )
        }
        // A child that ran is its transcript: continuing one whose transcript is gone would lose its context.
        const history = d.status === "queued" ? undefined : yield* childStore(handle)
        if (history !== undefined && (yield* history.transcript.read.pipe(Effect.map((r) => r.records.length), Effect.orElseSucceed(() => 0))) === 0) {
          return yield* refuse("InvalidContinuation", `${handle} cannot be continued: its transcript is missing (${history.transcript.location})`)
        }
        const type = (yield* findType(d.agent)) ??
          { name: d.agent, description: d.description, provider: d.provider, definition: { name: d.agent, description: d.description, systemPrompt: "", override: false, scope: "runtime", source: `runtime:${d.agent}` } } satisfies AgentType
        const activation = yield* tree.activations.begin(handle)
        if (activation === undefined) return yield* send(handle, message, from, sendOptions)
        const runId = makeId(new Date(yield* Clock.currentTimeMillis))
        const store = yield* childStore(handle)
        const background = sendOptions?.background === true
        const request: SpawnRequest = { prompt: message, description: d.description, agent: d.agent, background }
        const caller: ParentInfo = from === "user" ? userParent(d, tree) : from
        // A child that kept a worktree goes on working in it.
        const parentInfo: ParentInfo = d.worktree === undefined ? caller : { ...caller, cwd: d.worktree.path }
        // Continuing an archived child restores its transcript (its first append does).
        const { archivedAt: _archived, startedAt: _started, endedAt: _ended, ...rest } = d
        const at = yield* isoNow
        yield* tree.descriptors.note({ ...rest, runId, status: "queued", background, updatedAt: at, queuedAt: at })
        const announce = background ? yield* announced(parentInfo.handle, d.agent, handle, runId) : undefined
        const detachable = !background && sendOptions?.detachable === true
        if (detachable) activation.detach = yield* Deferred.make<AcceptedRun>()
        const spec: RunSpec = { tree, provider, type, handle, runId, request, parent: parentInfo, store, activation, message, continuation, announce }
        if (detachable) {
          // No interruption between the fork and the wait that stops the child when interrupted.
          const outcome = yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(activate(spec, false, true), (fiber) => restore(awaitDetachable(activation, fiber)))
          )
          return outcome.status === "accepted" ? { _tag: "Accepted", run: outcome } satisfies SendOutcome : { _tag: "Replied", result: outcome } satisfies SendOutcome
        }
        yield* activate(spec, background)
        if (background) return { _tag: "Accepted", run: { status: "accepted", runId, handle } } satisfies SendOutcome
        return { _tag: "Replied", result: yield* Deferred.await(activation.done) } satisfies SendOutcome
      }).pipe(Effect.withSpan("Subagents.send", { attributes: { handle } }))

    const stop: SubagentsShape["stop"] = Effect.fn("Subagents.stop")(function*(handle, from) {
      if (handle !== "all") yield* known(handle, from)
      return yield* tree.stopHeld(handle, from)
    })

    const wait: SubagentsShape["wait"] = Effect.fn("Subagents.wait")(function*(from, handles, timeout) {
      // Without handles: the background runs whose outcome `from` has not had yet.
      const undelivered = (d: SubagentDescriptor) =>
        tree.activations.get(d.handle) !== undefined || tree.announcements.record(d.runId)?.delivered === false
      const mine = tree.descriptors.all().filter((d) => d.parent === from && d.background === true && undelivered(d))
      const chosen = handles === undefined ? mine : yield* Effect.forEach(handles, (h) => known(h, from))
      const outcomes = yield* Effect.forEach(chosen, (d) => {
        const activation = tree.activations.get(d.handle)
        // Ended already: its outcome, if this process has it (announced or not), else its record.
        if (activation === undefined) return Effect.succeed<SubagentResult | SubagentDescriptor>(tree.announcements.record(d.runId)?.result ?? d)
        return Deferred.await(activation.done).pipe(
          Effect.timeoutOption(timeout),
          Effect.map((o) => (o._tag === "Some" ? o.value : tree.descriptors.get(d.handle) ?? d))
        )
      }, { concurrency: "unbounded" })
      // A parent that waited on a run has its outcome: it is not announced again.
      for (const o of outcomes) if ("output" in o) yield* tree.announcements.consume(o.runId)
      return outcomes
    })

    return {
      tree,
      providers,
      types,
      register: (provider) => Effect.flatMap(checkSpecification(provider), (p) => providers.register(p.name, p)),
      availableTypes,
      spawn,
      spawnDetachable,
      spawnBackground,
      spawnAll,
      send,
      stop,
      list: (from) => tree.descriptors.all().filter((d) => tree.isReachable(d.handle, from)),
      wait,
      runTurns: (handle, prompt, turn) => tree.runTurns(handle, prompt, turn),
      host: (request) =>
        Effect.gen(function*() {
          const provider = yield* Effect.orElseSucceed(providers.get(request.type.provider), () => undefined)
          if (provider === undefined) {
            return yield* refuse("Unsupported", `${request.handle} needs the "${request.type.provider}" backend, which this process does not have`)
          }
          return yield* hostActivation(tree, provider, request)
        }),
      typeNames: Effect.map(allTypes, (all) => all.map((t) => t.name))
    } satisfies SubagentsShape
  })
