import { loadFileCatalog, type ResolveAgentsOptions } from "@dsh/agent"
import type { Effect } from "effect"
import type { CatalogRequest } from "./CatalogRequest.ts"

/** Where agent files are looked for, beyond the working directory's project. */
export interface FileAgentsOptions {
  /** `$DSH_HOME`: `agents/`, `SYSTEM.md`, the trust store. */
  readonly dshHome: string
  /** The real OS home (`~/.agents/agents/`, `~` in `extraAgentDirs`). */
  readonly userHome: string
  readonly extraAgentDirs?: ReadonlyArray<string> | undefined
  /** `plugin_agent_dirs`: agent directories of enabled plugins, at the plugin scope. */
  readonly pluginAgentDirs?: ReadonlyArray<string> | undefined
  /** Replaces `@dsh/agent`'s built-in agent files (e.g. copies bundled with an app). */
  readonly builtinAgentsDir?: string | undefined
  /** For template variables (`SHELL`, …). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `${skills}` list of a working directory (what the `Skill` tool can load). */
  readonly skills?: ((cwd: string) => Effect.Effect<string>) | undefined
}

/** The agent-file search of one working directory; `agentFile` and `trustProject` are a session's own. */
export const agentSearch = (
  options: FileAgentsOptions,
  request: {
    readonly cwd: string
    readonly agentFile?: string | undefined
    readonly trustProject?: boolean | undefined
    /** Enabled plugins' directories (agents and `${plugin_sections}`). */
    readonly plugins?: ReadonlyArray<string> | undefined
  }
): ResolveAgentsOptions => ({
  cwd: request.cwd,
  dshHome: options.dshHome,
  userHome: options.userHome,
  agentFile: request.agentFile,
  extraAgentDirs: options.extraAgentDirs,
  pluginAgentDirs: options.pluginAgentDirs,
  plugins: request.plugins,
  trustProject: request.trustProject,
  builtinAgentsDir: options.builtinAgentsDir
})

/**
 * Agents from Markdown agent files (Claude Code, OpenCode, Gemini CLI formats), as `dsh run`
 * resolves them, for `HarnessOptions.agents`. A session created with `extra: {agentFile}` runs
 * that file's agent; `extra: {trustProject: true}` lets project files override built-ins;
 * `extra: {plugins: [dir, …]}` enables those plugins for the session.
 */
export const fileAgents = (options: FileAgentsOptions) => (request: CatalogRequest) =>
  loadFileCatalog({
    ...agentSearch(options, {
      cwd: request.cwd,
      agentFile: typeof request.extra.agentFile === "string" ? request.extra.agentFile : undefined,
      trustProject: request.extra.trustProject === true,
      plugins: Array.isArray(request.extra.plugins) ? request.extra.plugins.filter((p): p is string => typeof p === "string") : undefined
    }),
    agent: request.agent,
    env: options.env,
    skills: options.skills
  })
