import { AgentHost } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { SessionStore } from "@dsh/session"
import { Lane, Limits } from "@dsh/subagent"
import { Effect, Layer, Option, type Scope } from "effect"
import type { Built, HarnessOptions } from "./HarnessOptions.ts"
import { makeCatalogHandoff } from "./internal/catalogs.ts"
import { makeChildCalls } from "./internal/children.ts"
import { makeSessionCalls } from "./internal/hostSessions.ts"
import { makePermissionsCache } from "./internal/permissions.ts"
import { makePrompt } from "./internal/prompt.ts"
import { buildRuntime, type RuntimeDeps } from "./internal/runtime.ts"
import { makeRunningSessions } from "./internal/sessions.ts"

const built = <A, E, R>(value: Built<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(value) ? value : Effect.succeed(value)

/**
 * The model settings of one agent type: its `[agents.<name>]` key and endpoint over the main
 * ones (the key read from the variable it names, in the main settings' environment). An unset
 * variable leaves the main key: the main profile is the fallback, as the seed's merge says.
 */
export const agentModelConfig = (
  main: ModelRegistry.ModelConfig,
  profiles: HarnessOptions["agentModels"],
  agent: string | undefined
): ModelRegistry.ModelConfig => {
  const profile = agent === undefined || profiles === undefined || !Object.hasOwn(profiles, agent) ? undefined : profiles[agent]
  if (profile === undefined) return main
  const key = profile.apiKeyEnv === undefined ? undefined : main.env?.[profile.apiKeyEnv]
  return { ...main, ...(key === undefined || key === "" ? {} : { apiKey: key }), ...(profile.baseUrl === undefined ? {} : { baseUrl: profile.baseUrl }) }
}

/**
 * Builds the `AgentHost` a harness description asks for: sessions in the `SessionStore`,
 * models from the `ModelRegistry`, children through the described backends, with the lane and
 * limits of the context (`Lane`, `SubagentLimits`). Every prompt runs the main agent in the
 * wake loop (background outcomes announced before its next model call, the turn finished only
 * when its background children settle); `stopChild` reaches the process that runs a child.
 */
export const make = <E, R>(options: HarnessOptions<E, R>) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const registry = yield* ModelRegistry.ModelRegistry
    const limits = yield* Limits.SubagentLimits
    // One lane for every session of this host, unless the context provides one.
    const lane = Option.getOrUndefined(yield* Effect.serviceOption(Lane.Lane)) ?? (yield* Lane.makeMemory(limits.maxConcurrent))
    const backends = yield* built(options.backends)
    const tools = yield* built(options.tools ?? [])
    const modelConfig = options.modelConfig ?? {}
    const defaultModel = options.model ?? "scripted"
    const resolveModel: RuntimeDeps["resolveModel"] = (spec, agent) => registry.resolve(spec, agentModelConfig(modelConfig, options.agentModels, agent))
    const catalogs = makeCatalogHandoff(options.agents)
    const deps: RuntimeDeps = {
      options,
      store,
      backends,
      tools,
      limits,
      lane,
      resolveModel,
      catalogs,
      permissionsOf: makePermissionsCache(options.permissions)
    }
    const sessions = yield* makeRunningSessions(store, (sessionId, listeners, scope) => buildRuntime(deps, sessionId, listeners, scope))
    const host: AgentHost.AgentHostShape = {
      ...makeSessionCalls({ options, store, registry, defaultModel, resolveModel, catalogs, sessions }),
      prompt: makePrompt({ registry, store, resolveModel, sessions, pricing: options.pricing }),
      ...makeChildCalls(store, sessions)
    }
    return host
  })

/**
 * The `AgentHost` of a described harness. Needs a `SessionStore` and a `ModelRegistry`
 * (and whatever building its backends and tools needs, e.g. a `ProcessLauncher`); takes
 * `Lane` and `SubagentLimits` from its context when they are provided.
 */
export const layer = <E = never, R = never>(options: HarnessOptions<E, R>): Layer.Layer<AgentHost.AgentHost, E, SessionStore.SessionStore | ModelRegistry.ModelRegistry | Exclude<R, Scope.Scope>> =>
  Layer.effect(AgentHost.AgentHost, make(options))
