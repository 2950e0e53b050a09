import type { AgentHost } from "@dsh/agent"
import type { Records } from "@dsh/subagent"

/** A child as hosts report it (the CLI contract's `subagents list` fields). */
export const childSummary = (d: Records.SubagentDescriptor): AgentHost.HostChildSummary => ({
  name: d.handle,
  agent: d.agent,
  provider: d.provider,
  status: d.status,
  parent: d.parent,
  depth: d.depth,
  usage: d.usage,
  ...(d.cost === undefined ? {} : { cost: d.cost }),
  ...(d.model === undefined ? {} : { model: d.model }),
  ...(d.archivedAt === undefined ? {} : { archived: true })
})
