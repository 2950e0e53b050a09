import { a2aAgentEntries, type A2aAgentFile, withA2aAgentFiles } from "./A2aAgentConfig.ts"
import type { A2aAgentStatus } from "./A2aProvider.ts"

/**
 * The A2A agents of a config file's `[a2a.agents.*]` (`raw`: the parsed file) and the remote
 * agent files found: the usable entries, then each file whose name no entry (usable or not) has;
 * the files that lost their name are listed as shadowed.
 */
export const configuredA2aAgents = (raw: unknown, files: ReadonlyArray<A2aAgentFile>) => {
  const entries = a2aAgentEntries(raw)
  return withA2aAgentFiles(entries.flatMap((e) => (e.status === "ok" ? [e.agent] : [])), files, entries.map((e) => e.name))
}

/**
 * What a listing (`dsh agents list`) says of each A2A agent: the `[a2a.agents.*]` entries in file
 * order (a config fault, else what reading its card said in `cards`, the backend's `statuses`),
 * then the agents taken from remote agent files, each with its `source`.
 */
export const a2aAgentStatuses = (raw: unknown, files: ReadonlyArray<A2aAgentFile>, cards: ReadonlyArray<A2aAgentStatus>): ReadonlyArray<A2aAgentStatus> => {
  const byName = new Map(cards.map((s) => [s.name, s]))
  const configured = a2aAgentEntries(raw).map((e): A2aAgentStatus =>
    e.status === "invalid" ? { name: e.name, url: e.url, status: "invalid", reason: `[a2a.agents.${e.name}] ${e.reason}` } : byName.get(e.name) ?? { name: e.name, url: e.url, status: "ok" }
  )
  const fromFiles = configuredA2aAgents(raw, files).agents.flatMap((agent): ReadonlyArray<A2aAgentStatus> =>
    agent.source === undefined ? [] : [byName.get(agent.name) ?? { name: agent.name, url: agent.url, status: "ok", source: agent.source }]
  )
  return [...configured, ...fromFiles]
}
