import type { TurnLoop } from "@dsh/agent"
import { Registry, type Usage } from "@dsh/core"
import { Context, type Duration, Effect, type Scope } from "effect"
import { makeAdmission } from "./internal/admission.ts"
import { makeCatalog } from "./internal/catalog.ts"
import { makeControls } from "./internal/controls.ts"
import type { HostRequest } from "./internal/host.ts"
import { makeLauncher } from "./internal/launch.ts"
import { makeMessaging } from "./internal/messaging.ts"
import type { BatchEntry, SendOutcome } from "./internal/outcomes.ts"
import { makeSpawning } from "./internal/spawning.ts"
import type { SubagentDescriptor, SubagentResult } from "./Records.ts"
import type { SubagentError } from "./SubagentError.ts"
import { checkSpecification, type ProviderVersionError } from "./Specification.ts"
import type { SubagentTree } from "./SubagentTree.ts"
import type { AcceptedRun, AgentType, ChildOutcome, ParentInfo, SpawnRequest, SubagentProvider, TurnRunner } from "./Vocabulary.ts"

export type { HostRequest } from "./internal/host.ts"

export type { BatchEntry, SendOutcome } from "./internal/outcomes.ts"

/**
 * `ctx.subagents`: the backends (providers) and agent types that exist in one agent
 * context, over the tree the context belongs to, plus the continuation manager's
 * operations on children (continue, stop, list, wait, announcements).
 */
export interface SubagentsShape {
  readonly tree: SubagentTree
  readonly providers: Registry.NamedRegistry<SubagentProvider>
  readonly types: Registry.NamedRegistry<AgentType>
  readonly register: (provider: SubagentProvider) => Effect.Effect<void, Registry.RegistryError | ProviderVersionError, Scope.Scope>
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
  readonly runTurns: <E>(handle: string, prompt: string, turn: TurnRunner<E>) => Effect.Effect<TurnLoop.TurnResult, E>
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
  readonly pricing?: Usage.PriceLookup | undefined
  /** The provider runtime-created types run on (default `spawn`). */
  readonly dynamicProvider?: string | undefined
}

export const make = (options: SubagentsOptions): Effect.Effect<SubagentsShape, Registry.RegistryError | ProviderVersionError> =>
  Effect.gen(function*() {
    const { tree } = options
    const providers = yield* Registry.make<SubagentProvider>("subagent provider")
    const types = yield* Registry.make<AgentType>("agent type")
    for (const p of options.providers ?? []) yield* providers.registerPermanent(p.name, yield* checkSpecification(p))
    for (const t of options.types ?? []) yield* types.registerPermanent(t.name, t)
    // Checks, then admission, then launching: each stage a module of its own over the tree.
    const catalog = makeCatalog(tree, providers, types, options.dynamicProvider ?? "spawn")
    const admit = makeAdmission(tree, catalog)
    const launcher = makeLauncher(tree, options.pricing)
    const spawning = makeSpawning(tree, catalog, admit, launcher)
    const { send } = makeMessaging(tree, catalog, launcher)
    const controls = makeControls(tree, catalog)
    return {
      tree,
      providers,
      types,
      register: (provider) => Effect.flatMap(checkSpecification(provider), (p) => providers.register(p.name, p)),
      availableTypes: catalog.availableTypes,
      ...spawning,
      send,
      ...controls,
      runTurns: (handle, prompt, turn) => tree.runTurns(handle, prompt, turn),
      typeNames: Effect.map(catalog.allTypes, (all) => all.map((t) => t.name))
    } satisfies SubagentsShape
  })
