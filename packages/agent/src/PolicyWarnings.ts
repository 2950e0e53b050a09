import { ToolPolicy } from "@dsh/tools"
import type { AgentDefinition } from "./AgentDefinition.ts"

/**
 * Warnings for an agent's allow- and deny-lists once its profile applies (the tool set is only
 * known then): patterns that can never match (a wildcard outside `mcp__`, an incomplete
 * `mcp__` literal, a name no tool has, typically a typo such as `read` for `Read`). With
 * `knownAgents`, `subagents` entries that name no agent are reported too.
 */
export const agentPolicyWarnings = (
  agent: AgentDefinition,
  knownTools: ReadonlyArray<string>,
  knownAgents?: ReadonlyArray<string>
): Array<string> => {
  const prefix = `agent "${agent.name}" (${agent.source})`
  const warnings = ToolPolicy.policyWarnings({ tools: agent.tools, disallowedTools: agent.disallowedTools }, knownTools)
    .map((w) => `${prefix}: ${w}`)
  if (knownAgents !== undefined) {
    for (const name of agent.subagents ?? []) {
      if (!knownAgents.includes(name)) warnings.push(`${prefix}: subagents: no agent is named "${name}"`)
    }
  }
  return warnings
}
