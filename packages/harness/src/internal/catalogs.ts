import type { AgentCatalog, AgentHost } from "@dsh/agent"
import type { AgentDefinitionError } from "@dsh/agent-files"
import type { SessionStore } from "@dsh/session"
import { Clock, Effect } from "effect"
import type { HarnessOptions } from "../HarnessOptions.ts"

/** How long a new session's catalog stays current for its first prompt, and how many are kept. */
const CATALOG_HANDOFF_MS = 5_000
const CATALOG_HANDOFF_LIMIT = 16

/**
 * A session's first prompt usually comes moments after its creation (ACP's session/new then
 * session/prompt; `dsh run`): the catalog read to create it is handed to that first runtime
 * instead of every agent file being read again. Taken once; a later first prompt reads afresh.
 */
export const makeCatalogHandoff = (agents: HarnessOptions<unknown, unknown>["agents"]) => {
  const created = new Map<string, { readonly catalog: AgentCatalog.AgentCatalog; readonly at: number }>()
  const catalogOf = (state: SessionStore.SessionState) => agents({ cwd: state.cwd, agent: state.agent, extra: state })
  return {
    take: (state: SessionStore.SessionState): Effect.Effect<AgentCatalog.AgentCatalog, AgentHost.HostError | AgentDefinitionError.AgentDefinitionError> =>
      Effect.gen(function*() {
        const handed = created.get(state.id)
        created.delete(state.id)
        const fresh = handed !== undefined && (yield* Clock.currentTimeMillis) - handed.at <= CATALOG_HANDOFF_MS
        return fresh ? handed.catalog : yield* catalogOf(state)
      }),
    hand: (sessionId: string, catalog: AgentCatalog.AgentCatalog) =>
      Effect.gen(function*() {
        // Bounded: sessions created and never prompted do not pile up.
        if (created.size >= CATALOG_HANDOFF_LIMIT) created.delete(created.keys().next().value!)
        created.set(sessionId, { catalog, at: yield* Clock.currentTimeMillis })
      })
  }
}

export type CatalogHandoff = ReturnType<typeof makeCatalogHandoff>
