import type { AgentDefinition } from "./AgentDefinition.ts"

/**
 * System prompt templates: `${var}` placeholders replaced with live context on every prompt
 * build. Unknown variables stay as written (a file written for a newer dsh still reads), a lone
 * `$` means nothing, and a known variable with no value renders as the empty string.
 */

/** The variables dsh knows, with what they hold (the seed's table plus its pre-composed blocks). */
export const TEMPLATE_VARIABLES = {
  skills: "merged Agent Skills content; empty when the Skill tool is unavailable",
  agents_md: "the workspace instruction files (AGENTS.md, TOOLS.md) content",
  cwd: "the current working directory",
  cwd_listing: "a bounded two-level listing of the working directory",
  os: "the operating system type",
  shell: "the shell name and path, e.g. bash (`/bin/bash`)",
  now: "the current time in ISO format",
  additional_dirs_info: "the extra directories added to the workspace; empty when there are none",
  base_prompt: "the default system prompt (built-in, or SYSTEM.md in agent files)",
  plugin_sections: "the Plugin Instructions block from enabled plugins; empty when none",
  windows_notes: "the built-in Windows notes section; empty elsewhere",
  additional_dirs_section: "the built-in Additional Directories section; empty without extra directories",
  skills_section: "the built-in Skills section; empty without skills"
} as const

export type TemplateVariable = keyof typeof TEMPLATE_VARIABLES

/** Values for a render. Keys outside {@link TEMPLATE_VARIABLES} are substituted too. */
export type TemplateVars = Readonly<Partial<Record<TemplateVariable, string | undefined>> & Record<string, string | undefined>>

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Renders one template in a single pass: substituted values are not scanned again, so `${…}`
 * inside AGENTS.md or a listing stays literal.
 */
export const renderSystemPrompt = (template: string, vars: TemplateVars): string =>
  template.replace(PLACEHOLDER, (whole, name: string) => {
    if (Object.hasOwn(vars, name)) return vars[name] ?? ""
    if (Object.hasOwn(TEMPLATE_VARIABLES, name)) return ""
    return whole
  })

/** The two default prompts `${base_prompt}` can stand for; `resolveAgents` returns them. */
export interface BasePrompts {
  /** The built-in default main agent's prompt template. */
  readonly builtin: string
  /** `$DSH_HOME/SYSTEM.md`, when it exists and is not empty. */
  readonly systemMd?: { readonly path: string; readonly template: string } | undefined
}

/**
 * Renders an agent's system prompt with `${base_prompt}` bound as the seed says: in SYSTEM.md it
 * is the built-in default prompt; in any agent file it is the effective default (SYSTEM.md when
 * present, else the built-in one).
 */
export const renderAgentPrompt = (agent: AgentDefinition, base: BasePrompts, vars: TemplateVars): string => {
  const builtin = renderSystemPrompt(base.builtin, { ...vars, base_prompt: "" })
  const effective = base.systemMd === undefined
    ? builtin
    : renderSystemPrompt(base.systemMd.template, { ...vars, base_prompt: builtin })
  if (base.systemMd !== undefined && agent.source === base.systemMd.path) return effective
  return renderSystemPrompt(agent.systemPrompt, { ...vars, base_prompt: effective })
}
