import type { AgentCatalog } from "@dsh/agent"
import { type AgentDefinitionError, FileCatalog, type RemoteAgentFile, ResolveAgents } from "@dsh/agent-files"
import { Effect } from "effect"
import * as Path from "node:path"
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
  /**
   * `"a2a"`: the harness has an A2A backend, so Gemini CLI remote agent files (`kind: remote`)
   * are taken as A2A agents (see `sharedFileAgents`) instead of being skipped.
   */
  readonly remoteAgents?: "a2a" | undefined
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
): ResolveAgents.ResolveAgentsOptions => ({
  cwd: request.cwd,
  dshHome: options.dshHome,
  userHome: options.userHome,
  agentFile: request.agentFile,
  extraAgentDirs: options.extraAgentDirs,
  pluginAgentDirs: options.pluginAgentDirs,
  plugins: request.plugins,
  trustProject: request.trustProject,
  builtinAgentsDir: options.builtinAgentsDir,
  remoteAgents: options.remoteAgents
})

/**
 * Agents from Markdown agent files (Claude Code, OpenCode, Gemini CLI formats), as `dsh run`
 * resolves them, for `HarnessOptions.agents`. A session created with `extra: {agentFile}` runs
 * that file's agent; `extra: {trustProject: true}` lets project files override built-ins;
 * `extra: {plugins: [dir, …]}` enables those plugins for the session.
 */
export const fileAgents = (options: FileAgentsOptions) => (request: CatalogRequest) =>
  FileCatalog.loadFileCatalog({ ...requestSearch(options, request), agent: request.agent, env: options.env, skills: options.skills })

const requestSearch = (options: FileAgentsOptions, request: CatalogRequest): ResolveAgents.ResolveAgentsOptions =>
  agentSearch(options, {
    cwd: request.cwd,
    agentFile: typeof request.extra.agentFile === "string" ? request.extra.agentFile : undefined,
    trustProject: request.extra.trustProject === true,
    plugins: Array.isArray(request.extra.plugins) ? request.extra.plugins.filter((p): p is string => typeof p === "string") : undefined
  })

/** Agent files whose remote agents a harness's backends need before its first session. */
export interface SharedFileAgents {
  /** For `HarnessOptions.agents`, as `fileAgents`. */
  readonly agents: (request: CatalogRequest) => Effect.Effect<AgentCatalog.AgentCatalog, AgentDefinitionError.AgentDefinitionError>
  /**
   * The remote agent files (`kind: remote`) of `cwd`'s search, for the A2A backend (e.g.
   * `withA2aAgentFiles` of `@dsh/subagent-a2a`): resolved once, and that resolution is handed to
   * the first catalog of the same search instead of every directory being scanned again. A
   * resolution that fails gives none (the catalog reports the failure).
   */
  readonly remoteAgents: Effect.Effect<ReadonlyArray<RemoteAgentFile.RemoteAgentSpec>>
}

/**
 * `fileAgents` with `remoteAgents: "a2a"`, sharing one resolution between the backends (which
 * are built first and need the remote agents as types) and the first session's catalog.
 */
export const sharedFileAgents = (options: FileAgentsOptions, cwd: string): SharedFileAgents => {
  const withRemote: FileAgentsOptions = { ...options, remoteAgents: "a2a" }
  const keyOf = (search: ResolveAgents.ResolveAgentsOptions) => JSON.stringify({ ...search, cwd: Path.resolve(search.cwd) })
  const search = requestSearch(withRemote, { cwd, extra: {} })
  const key = keyOf(search)
  // Handed once: a later session (a long-lived host) reads its files afresh.
  let handed: ResolveAgents.ResolvedAgents | undefined
  return {
    remoteAgents: ResolveAgents.resolveAgents(search).pipe(
      Effect.tap((resolved) => Effect.sync(() => (handed = resolved))),
      Effect.map((resolved) => resolved.remoteAgents ?? []),
      Effect.orElseSucceed((): ReadonlyArray<RemoteAgentFile.RemoteAgentSpec> => [])
    ),
    agents: (request) =>
      Effect.suspend(() => {
        const own = requestSearch(withRemote, request)
        const resolved = handed !== undefined && keyOf(own) === key ? handed : undefined
        if (resolved !== undefined) handed = undefined
        return FileCatalog.loadFileCatalog({ ...own, agent: request.agent, env: options.env, skills: options.skills, resolved })
      })
  }
}
