/**
 * Limits shared by agent files (`@dsh/agent-files`) and runtime-created agents (`create_subagent`
 * reuses them), so a name or prompt that loads from disk is also accepted at runtime and vice versa.
 */

/** Longest accepted agent name: names appear in tool schemas, handles (`name-3`) and paths. */
export const MAX_AGENT_NAME_LENGTH = 64

/**
 * Largest system prompt (in characters) an agent may carry. Bounds the prompt a model can create
 * at runtime and the body of an agent file; the largest file in our corpus is about 45 kB.
 */
export const MAX_SYSTEM_PROMPT_CHARS = 100_000

/** kebab-case: lowercase letters and digits in groups joined by single hyphens. */
export const AGENT_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/**
 * Why `name` cannot name an agent, or `undefined` when it can. A name must be non-empty,
 * kebab-case and at most {@link MAX_AGENT_NAME_LENGTH} characters: it routes delegations and
 * becomes part of child handles and directory names.
 */
export const validateAgentName = (name: string): string | undefined => {
  if (name.length === 0) return "agent name is empty"
  if (name.length > MAX_AGENT_NAME_LENGTH) {
    return `agent name "${name.slice(0, 80)}" is longer than ${MAX_AGENT_NAME_LENGTH} characters`
  }
  if (!AGENT_NAME_PATTERN.test(name)) {
    const hint = suggestAgentName(name)
    return `agent name "${name}" is not kebab-case` + (hint !== undefined ? ` (try "${hint}")` : "")
  }
  return undefined
}

/** A kebab-case spelling of `name` for error hints (`Code_Reviewer` → `code-reviewer`). */
export const suggestAgentName = (name: string): string | undefined => {
  const kebab = name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
  return kebab.length > 0 && kebab.length <= MAX_AGENT_NAME_LENGTH && kebab !== name ? kebab : undefined
}
