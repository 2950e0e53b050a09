import type { AgentCatalog, AgentHost } from "@dsh/agent"
import type { AgentDefinitionError } from "@dsh/agent-files"
import type { Events, Registry } from "@dsh/core"
import type { LanguageModel, LlmError } from "@dsh/llm"
import type { SessionError, SessionStore } from "@dsh/session"
import type { Lane, Limits, Specification, SubagentTree } from "@dsh/subagent"
import type { Hooks, Permissions, Tool } from "@dsh/tools"
import { Effect, Scope } from "effect"
import { make as makeAgentContext, type AgentContextOptions } from "../AgentContext.ts"
import type { AgentContext } from "./contexts.ts"
import type { BackendInput, HarnessOptions } from "../HarnessOptions.ts"
import type { CatalogHandoff } from "./catalogs.ts"
import { sessionHooks } from "./hooks.ts"
import { governed, type makePermissionsCache } from "./permissions.ts"

export type ChildListener = (handle: string, event: Events.AgentEvent) => Effect.Effect<void>

/** What every session runtime of one host is built from. */
export interface RuntimeDeps {
  readonly options: HarnessOptions<unknown, unknown>
  readonly store: SessionStore.SessionStoreShape
  readonly backends: ReadonlyArray<BackendInput>
  readonly tools: ReadonlyArray<Tool.AnyTool>
  readonly limits: Limits.SubagentLimitsShape
  readonly lane: Lane.LaneShape
  readonly resolveModel: NonNullable<AgentContextOptions["resolveModel"]>
  readonly catalogs: CatalogHandoff
  readonly permissionsOf: ReturnType<typeof makePermissionsCache>
}

/**
 * The catalog with `[agents.<name>]` models over the files' (config is the user's word). A type
 * with its own credentials but no model runs the session's model with them (resolved again,
 * not the parent's instance, which holds the main key).
 */
const withAgentModels = (catalog: AgentCatalog.AgentCatalog, profiles: HarnessOptions["agentModels"], sessionModel: string): AgentCatalog.AgentCatalog => {
  if (profiles === undefined || Object.keys(profiles).length === 0) return catalog
  const apply = (d: AgentCatalog.AgentCatalog["delegates"][number]) => {
    const profile = Object.hasOwn(profiles, d.name) ? profiles[d.name] : undefined
    if (profile === undefined) return d
    const own = profile.apiKeyEnv !== undefined || profile.baseUrl !== undefined
    const model = profile.model ?? d.model ?? (own ? sessionModel : undefined)
    return model === undefined ? d : { ...d, model }
  }
  return { ...catalog, delegates: catalog.delegates.map(apply) }
}

/** A session's tree and its main agent's context, built in `scope` under the session's lease. */
export const buildRuntime = (deps: RuntimeDeps, sessionId: string, listeners: Set<ChildListener>, scope: Scope.Scope): Effect.Effect<Runtime, RuntimeError> =>
  Effect.gen(function*() {
    const { options } = deps
    const session = yield* deps.store.open(sessionId)
    // One process runs a session: another live owner makes this fail `Owned`.
    yield* session.acquire
    const state: SessionStore.SessionState = yield* session.readState
    const model = yield* deps.resolveModel(state.model, state.agent)
    const catalog: AgentCatalog.AgentCatalog = withAgentModels(yield* deps.catalogs.take(state), options.agentModels, state.model)
    const permissions = yield* deps.permissionsOf(state)
    const hooks = yield* sessionHooks(options, { id: sessionId, cwd: state.cwd, agent: state.agent, extra: state, transcriptPath: session.transcript.location })
    const onChildEvent = (handle: string, event: Events.AgentEvent) => Effect.forEach(listeners, (listen) => listen(handle, event), { discard: true })
    const main = yield* makeAgentContext({
      delegatesRunOn: options.delegatesRunOn,
      controlTools: options.controlTools,
      createTools: options.createTools,
      pricing: options.pricing,
      subagentModel: options.subagentModel,
      catalog,
      backends: deps.backends,
      tools: deps.tools,
      model,
      session,
      cwd: state.cwd,
      limits: deps.limits,
      lane: deps.lane,
      resolveModel: deps.resolveModel,
      onChildEvent,
      onAnnouncement: options.onAnnouncement,
      admission: options.sharedAdmission === true ? "session" : "memory"
    })
    // Messages other processes send to this session's children come through here.
    yield* main.tree.answerSends((handle, message) =>
      governed({ permissions, catalog, hooks }, main.subagents.send(handle, message, "user")).pipe(
        Effect.map((o) => (o._tag === "Replied" ? o.result : undefined)),
        Effect.mapError((e) => e.message)
      ))
    // SessionStart when this process takes the session up, SessionEnd when it lets it go.
    const sessionHook = (event: "SessionStart" | "SessionEnd") =>
      hooks.has(event)
        ? hooks.run(event, { input: { cwd: state.cwd, agent_id: "main" }, emit: (e) => session.transcript.append(e).pipe(Effect.ignore({ log: "Warn" })) }).pipe(Effect.asVoid)
        : Effect.void
    yield* sessionHook("SessionStart")
    yield* Effect.addFinalizer(() => sessionHook("SessionEnd"))
    return { session, state, model, catalog, tree: main.tree, main, permissions, hooks }
  }).pipe(Scope.provide(scope))

/** A session this process runs: its handle and state, model, catalog, tree and main context, rules. */
export interface Runtime {
  readonly session: SessionStore.SessionHandle
  readonly state: SessionStore.SessionState
  readonly model: LanguageModel.LanguageModelShape
  readonly catalog: AgentCatalog.AgentCatalog
  readonly tree: SubagentTree.SubagentTree
  readonly main: AgentContext & { readonly tree: SubagentTree.SubagentTree }
  readonly permissions: Permissions.PermissionsShape | undefined
  readonly hooks: Hooks.HooksShape
}

/** Why a session's runtime could not be built. */
export type RuntimeError = AgentDefinitionError.AgentDefinitionError | AgentHost.HostError | LlmError.LlmError | Specification.ProviderVersionError | Registry.RegistryError | SessionError.SessionError
