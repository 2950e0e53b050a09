import * as Path from "node:path"
import { type AgentCatalog, type AgentDefinition, Template } from "@dsh/agent"
import { Clock, Effect } from "effect"
import type { AgentDefinitionError } from "./AgentDefinitionError.ts"
import { DEFAULT_AGENT_NAME } from "./Builtins.ts"
import { findAgent, isDelegable, resolveAgents, type ResolveAgentsOptions, type ResolvedAgents } from "./ResolveAgents.ts"
import { collectTemplateVars } from "./TemplateVars.ts"

export interface FileCatalogOptions extends ResolveAgentsOptions {
  /** The main agent by name (`--agent`, or the one a session is bound to); default `agent`. */
  readonly agent?: string | undefined
  /** For template variables (`SHELL`, …). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `${skills}` list of `cwd` (names and descriptions of the skills the `Skill` tool loads); none without it. */
  readonly skills?: ((cwd: string) => Effect.Effect<string>) | undefined
  /** A resolution already made with these options (shared with whoever else needed it): not read again. */
  readonly resolved?: ResolvedAgents | undefined
}

/**
 * The catalog from agent files, as `dsh run` resolves it: files, scopes, trust and built-ins
 * (see `resolveAgents`), the main agent being `agentFile`'s, the named one, or the default;
 * prompts rendered with the template variables of `cwd`.
 */
export const loadFileCatalog = (options: FileCatalogOptions): Effect.Effect<AgentCatalog.AgentCatalog & { readonly resolved: ResolvedAgents }, AgentDefinitionError> =>
  Effect.gen(function*() {
    const resolved = options.resolved ?? (yield* resolveAgents(options))
    // The file itself (a Kimi spec brings the subagents it declares at the same scope).
    const explicitPath = options.agentFile === undefined ? undefined : Path.resolve(options.cwd, options.agentFile)
    const explicit = explicitPath === undefined ? undefined : resolved.agents.find((a) => a.scope === "explicit" && a.source === explicitPath)
    const main = explicit ?? (yield* findAgent(resolved, options.agent ?? DEFAULT_AGENT_NAME))
    const vars: Template.TemplateVars = yield* collectTemplateVars({
      cwd: options.cwd,
      now: new Date(yield* Clock.currentTimeMillis),
      env: options.env,
      projectRoot: resolved.projectRoot,
      dshHome: options.dshHome,
      userHome: options.userHome,
      skills: options.skills === undefined ? undefined : yield* options.skills(options.cwd),
      pluginInstructions: resolved.pluginInstructions
    })
    const render = (definition: AgentDefinition.AgentDefinition, cwd: string) =>
      Template.renderAgentPrompt(definition, resolved.basePrompts, cwd === options.cwd ? vars : { ...vars, cwd })
    return {
      main,
      systemPrompt: render(main, options.cwd),
      delegates: resolved.agents.filter((a) => a.name !== main.name && isDelegable(a)),
      render,
      resolved
    }
  })
