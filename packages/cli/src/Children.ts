import type { HostChildSummary } from "@dsh/agent"
import type { SubagentDescriptor } from "@dsh/subagent"

/** The children recorded in a session's `state.json`, oldest first. */
export const descriptorsOf = (state: Readonly<Record<string, unknown>>): Array<SubagentDescriptor> =>
  Object.values((state.subagents ?? {}) as Record<string, SubagentDescriptor>)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.handle.localeCompare(b.handle))

/** A child as the CLI contract's `subagents list` shows it. */
export const childSummary = (d: SubagentDescriptor): HostChildSummary => ({
  name: d.handle,
  agent: d.agent,
  provider: d.provider,
  status: d.status,
  parent: d.parent,
  depth: d.depth,
  usage: d.usage
})
