import type { AgentDefinition } from "@dsh/agent"
import type { Subagents, Vocabulary } from "@dsh/subagent"
import type { PermissionSubject } from "@dsh/tools"

/**
 * Tools that change nothing outside the child's own context: reading and searching, and the
 * delegation family itself (a nested delegation is decided again, where it happens).
 */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set([
  "Read", "Glob", "Grep",
  "subagent", "swarm", "send_message", "list_agents", "agents_list", "wait", "sessions_history", "report"
])

// Providers that run another harness whose tools dsh does not see (a vendor's ACP agent, an
// A2A agent): what they can change is theirs to say, so they always count as writing.
const FOREIGN_PROVIDERS: ReadonlySet<string> = new Set(["acp", "a2a"])

/** Whether a definition's tools (after `disallowedTools`) are all read-only. No list means every tool. */
const readOnly = (definition: Pick<AgentDefinition.AgentDefinition, "tools" | "disallowedTools">): boolean => {
  if (definition.tools === undefined || definition.tools.includes("*")) return false
  const denied = new Set(definition.disallowedTools ?? [])
  return definition.tools.filter((t) => !denied.has(t)).every((t) => READ_ONLY_TOOLS.has(t))
}

/**
 * What delegating to `type` means to the permission modes: `read` for a child that can only read
 * (`explore`, `plan`), so it runs without asking; `other` for one with write tools (`coder`) or
 * another vendor's agent (`acp:<vendor>`), so the default mode asks, and an `allow` rule such
 * as `subagent(coder)` (or `--yolo`) lets it through.
 */
export const delegationKind = (type: Vocabulary.AgentType): PermissionSubject.ToolKind =>
  FOREIGN_PROVIDERS.has(type.provider) ? "other" : readOnly(type.definition) ? "read" : "other"

/**
 * The kind of a delegation to the type named `name` among `types` (the ones offered when the tool
 * was made) or created since (`create_subagent`). A name that resolves to nothing is `read`: the
 * service refuses it anyway, with the list of types the model can use.
 */
export const delegationKindOf = (subagents: Subagents.Subagents["Service"], types: ReadonlyArray<Vocabulary.AgentType>) => (name: string): PermissionSubject.ToolKind => {
  const fixed = types.find((t) => t.name === name)
  if (fixed !== undefined) return delegationKind(fixed)
  const created = subagents.tree.dynamicTypes.get(name)
  return created === undefined ? "read" : readOnly({ tools: created.tools }) ? "read" : "other"
}
