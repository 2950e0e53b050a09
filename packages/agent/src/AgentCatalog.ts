import type { AgentDefinition } from "./AgentDefinition.ts"
import { renderSystemPrompt, type TemplateVars } from "./Template.ts"

/**
 * The agents one session can run: its main agent with its rendered system prompt, and the
 * definitions its children may run as. A harness hands one to the host for each session; agents
 * defined in code make one with `staticCatalog`, agent files with `@dsh/agent-files`' `loadFileCatalog`.
 */
export interface AgentCatalog {
  readonly main: AgentDefinition
  /** The main agent's rendered system prompt. */
  readonly systemPrompt: string
  /** Every other agent a child may run as (the `subagent` tool's types). */
  readonly delegates: ReadonlyArray<AgentDefinition>
  /** Renders any agent's prompt with the session's variables (children share their parent's context). */
  readonly render: (definition: AgentDefinition, cwd: string) => string
}

/**
 * A catalog of agents defined in code. Prompts are rendered with `vars` (`${cwd}` is filled
 * with the working directory).
 */
export const staticCatalog = (options: {
  readonly main: AgentDefinition
  readonly delegates?: ReadonlyArray<AgentDefinition> | undefined
  readonly vars?: TemplateVars | undefined
}): AgentCatalog => {
  const render = (definition: AgentDefinition, cwd: string) => renderSystemPrompt(definition.systemPrompt, { ...options.vars, cwd })
  return { main: options.main, systemPrompt: render(options.main, ""), delegates: options.delegates ?? [], render }
}
