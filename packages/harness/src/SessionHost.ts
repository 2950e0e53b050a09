import { AgentHost } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { SessionStore } from "@dsh/session"
import { Lane, Limits, Subagents, SubagentTree } from "@dsh/subagent"
import { Hooks, PermissionPolicy, type PermissionRule, Permissions } from "@dsh/tools"
import { Effect, Option, RcMap, type Scope } from "effect"
import type { BackendInput, Built, HarnessOptions } from "./HarnessOptions.ts"
import { toHostError } from "./HostErrors.ts"
import { sessionHooks } from "./internal/hooks.ts"
import { sessionPermissions } from "./SessionPermissions.ts"
import { agentTypes, childContextFactory, type ContextPlan } from "./internal/contexts.ts"

const built = <A, E, R>(value: Built<A, E, R>): Effect.Effect<A, E, R> => (Effect.isEffect(value) ? value : Effect.succeed(value))
const asBackend = (b: BackendInput) => ("provider" in b ? b : { provider: b, types: [] })

/** How long a session no hosted run uses stays loaded here (its next child is likely close behind). */
const SESSION_LINGER = "30 seconds"

/** Opens the hosting `Subagents` of one child of a session, for the calling scope. */
export interface SessionHostShape {
  /**
   * `parentPermissions`: the rules of the process that admitted the child (its
   * `PermissionsShape.settings`); the child is decided by the harness's rules for the session
   * narrowed by them, so a runner never allows what the parent would not.
   */
  readonly open: (
    sessionId: string,
    handle: string,
    parentPermissions?: ReadonlyArray<PermissionPolicy.PermissionSettings> | undefined
  ) => Effect.Effect<Subagents.SubagentsShape, AgentHost.HostError, Scope.Scope>
}

/**
 * A hosted child's rules: the admitting process's, exactly as its in-process children have them
 * (allow rules and `bypass` included), narrowed by what narrows in the harness's own rules for
 * the session (`narrowingOnly`: deny, ask as a denial, plan), so a runner's deny still wins and
 * its allows never widen. Without a parent's rules, the harness's own decide; undefined when
 * there are none at all.
 */
const narrowedBy = (own: Permissions.PermissionsShape | undefined, parent: ReadonlyArray<PermissionPolicy.PermissionSettings>): Effect.Effect<Permissions.PermissionsShape | undefined, PermissionRule.PermissionRuleError> =>
  parent.length === 0
    ? Effect.succeed(own)
    : Permissions.make(...parent, ...(own?.settings ?? []).map(PermissionPolicy.narrowingOnly))

/**
 * Hosting a session's children in a process that does not own the session (a cluster runner):
 * each hosted child gets a tree of its own over the session, built as the owner builds its
 * tree — the same agents, backends, tools and models of the described harness — but without
 * the ownership lease, without recovering the owner's records, and admitting grandchildren
 * through the session's state so handles stay unique across processes. A child's own tree
 * holds what it starts (a grandchild here, even when the grandchild's run lands on this same
 * process). What every child of a session shares (its agents, its model, its permission rules)
 * is read once while any of them is hosted and for `SESSION_LINGER` after the last (it lives in
 * the calling scope); a hosted run is decided by those rules narrowed by the admitting process's.
 */
export const make = <E = never, R = never>(options: HarnessOptions<E, R>) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const registry = yield* ModelRegistry.ModelRegistry
    const limits = yield* Limits.SubagentLimits
    const lane = Option.getOrUndefined(yield* Effect.serviceOption(Lane.Lane)) ?? (yield* Lane.makeMemory(limits.maxConcurrent))
    const backends = (yield* built(options.backends)).map(asBackend)
    const tools = yield* built(options.tools ?? [])
    const resolveModel = (spec: string) => registry.resolve(spec, options.modelConfig ?? {})

    const load = (sessionId: string) =>
      toHostError(Effect.gen(function*() {
        const session = yield* store.open(sessionId)
        const state = yield* session.readState
        const catalog = yield* options.agents({ cwd: state.cwd, agent: state.agent, extra: state })
        const plan: ContextPlan = {
          catalog,
          backends,
          tools,
          options: { delegatesRunOn: options.delegatesRunOn, controlTools: options.controlTools, createTools: options.createTools, pricing: options.pricing }
        }
        const permissions = yield* sessionPermissions(options.permissions, { cwd: state.cwd, agent: state.agent, extra: state })
        // The hosting process's own hooks (its config's) run for the hosted run, as its rules narrow it.
        const hooks = yield* sessionHooks(options, { id: sessionId, cwd: state.cwd, agent: state.agent, extra: state, transcriptPath: session.transcript.location })
        return { session, cwd: state.cwd, plan, model: yield* resolveModel(state.model), permissions, hooks }
      }))
    // What every hosted run of a session shares, loaded once while any is hosted and kept for a
    // while after the last one (a stream of instant children is one load, not one per child:
    // each load read and decoded the whole state, O(children) per child); then its handle is
    // let go from memory too.
    const loaded = yield* RcMap.make({
      lookup: (sessionId: string) => Effect.acquireRelease(load(sessionId), () => store.release === undefined ? Effect.void : store.release(sessionId)),
      idleTimeToLive: SESSION_LINGER
    })
    const sessionOf = (sessionId: string) => RcMap.get(loaded, sessionId)

    const host: SessionHostShape = {
      open: (sessionId, _handle, parentPermissions) =>
        Effect.gen(function*() {
          const { session, cwd, plan, model, permissions: own, hooks } = yield* sessionOf(sessionId)
          const permissions = yield* narrowedBy(own, parentPermissions ?? []).pipe(
            Effect.mapError((e) => new AgentHost.HostError({ reason: "InvalidInput", message: `the parent's permission rules: ${e.message}` }))
          )
          const tree = yield* toHostError(SubagentTree.make({
            session,
            cwd,
            defaultModel: model,
            limits,
            lane,
            childContext: childContextFactory(plan),
            resolveModel,
            owner: false,
            admission: "session"
          }))
          const subagents = yield* toHostError(Subagents.make({
            tree,
            providers: backends.map((b) => b.provider),
            types: agentTypes(plan),
            pricing: options.pricing,
            dynamicProvider: options.delegatesRunOn
          }))
          // The hosted run, and everything it starts here, decides by these rules and runs these hooks.
          const hooked = (effect: ReturnType<Subagents.SubagentsShape["host"]>) => hooks === Hooks.noHooks ? effect : Effect.provideService(effect, Hooks.Hooks, hooks)
          return permissions === undefined
            ? (hooks === Hooks.noHooks ? subagents : { ...subagents, host: (request) => hooked(subagents.host(request)) } satisfies Subagents.SubagentsShape)
            : { ...subagents, host: (request) => hooked(Effect.provideService(subagents.host(request), Permissions.Permissions, permissions)) } satisfies Subagents.SubagentsShape
        })
    }
    return host
  })
