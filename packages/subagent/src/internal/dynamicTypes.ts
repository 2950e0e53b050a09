import type { SessionError, SessionStore } from "@dsh/session"
import { Effect, Schema, Semaphore } from "effect"
import type { AgentType } from "../Vocabulary.ts"

/** `state.json` → `dynamicAgents`: agent types created at runtime in this session. */
export const DynamicAgentSpec = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  systemPrompt: Schema.String,
  tools: Schema.optional(Schema.Array(Schema.String)),
  createdBy: Schema.String,
  createdAt: Schema.String
})
export type DynamicAgentSpec = typeof DynamicAgentSpec.Type

const KEY = "dynamicAgents"
const decodeSpec = Schema.decodeUnknownResult(DynamicAgentSpec)

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
 * A record that does not decode is skipped with a warning.
 */
export const makeDynamicTypes = (session: SessionStore.SessionHandle | undefined, state: SessionStore.SessionState | undefined) =>
  Effect.gen(function*() {
    const specs = new Map<string, DynamicAgentSpec>()
    const stored = state?.[KEY]
    for (const raw of Array.isArray(stored) ? stored : []) {
      const decoded = decodeSpec(raw)
      if (decoded._tag === "Failure") yield* Effect.logWarning(`state.json: skipped a runtime-created agent type: ${decoded.failure.message.split("\n")[0]}`)
      else if (!specs.has(decoded.success.name)) specs.set(decoded.success.name, decoded.success)
    }
    const lock = yield* Semaphore.make(1)
    const persist: Effect.Effect<void, SessionError.SessionError> = Effect.suspend(() => {
      const all = [...specs.values()]
      return session === undefined ? Effect.void : session.updateState((s) => ({ ...s, [KEY]: all })).pipe(Effect.asVoid)
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
