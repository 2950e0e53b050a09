import type { SessionHandle } from "@dsh/session"
import { Effect, Semaphore } from "effect"
import type { AgentType } from "../Vocabulary.ts"

/** `state.json` → `dynamicAgents`: agent types created at runtime in this session. */
export interface DynamicAgentSpec {
  readonly name: string
  readonly description: string
  readonly systemPrompt: string
  readonly tools?: ReadonlyArray<string> | undefined
  readonly createdBy: string
  readonly createdAt: string
}

const KEY = "dynamicAgents"

export const toAgentType = (spec: DynamicAgentSpec, provider: string): AgentType => ({
  name: spec.name,
  description: spec.description,
  provider,
  definition: {
    name: spec.name,
    description: spec.description,
    systemPrompt: `${spec.systemPrompt}\n\nYour last message is your complete, self-contained result: the agent that delegated to you sees only that.`,
    tools: spec.tools,
    override: false,
    scope: "runtime",
    source: `runtime:${spec.createdBy}`
  }
})

/**
 * Agent types created at runtime (`create_subagent`): registered for the whole session tree
 * at once and persisted in `state.json`, so they are restored when the session is loaded.
 */
export const makeDynamicTypes = (session: SessionHandle | undefined) =>
  Effect.gen(function*() {
    const state = session === undefined ? undefined : yield* session.readState.pipe(Effect.orElseSucceed(() => undefined))
    const specs = new Map<string, DynamicAgentSpec>()
    for (const spec of (Array.isArray(state?.[KEY]) ? state[KEY] : []) as ReadonlyArray<DynamicAgentSpec>) {
      if (typeof spec?.name === "string" && !specs.has(spec.name)) specs.set(spec.name, spec)
    }
    const lock = yield* Semaphore.make(1)
    const persist = Effect.suspend(() => {
      const all = [...specs.values()]
      return session === undefined ? Effect.void : session.updateState((s) => ({ ...s, [KEY]: all })).pipe(Effect.ignore)
    })
    return {
      get: (name: string) => specs.get(name),
      all: () => [...specs.values()],
      /** Sets or replaces a spec and persists the set (serialized). */
      put: (spec: DynamicAgentSpec) => Semaphore.withPermit(lock)(Effect.sync(() => specs.set(spec.name, spec)).pipe(Effect.andThen(persist))),
      remove: (name: string) => Semaphore.withPermit(lock)(Effect.sync(() => specs.delete(name)).pipe(Effect.andThen(persist)))
    }
  })

export type DynamicTypes = Effect.Success<ReturnType<typeof makeDynamicTypes>>
