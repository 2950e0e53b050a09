import * as Path from "node:path"
import { Effect } from "effect"
import { type AgentDefinition, AgentName, type Template } from "@dsh/agent"
import { AgentDefinitionError } from "./AgentDefinitionError.ts"
import { DEFAULT_AGENT_NAME, loadBuiltinAgents } from "./Builtins.ts"
import type { AgentFileResult } from "./AgentFile.ts"
import { isCodexRolePath, loadCodexRole } from "./CodexAgentRole.ts"
import { findProjectRoot, loadAgentFile, scanAgentDir } from "./Discovery.ts"
import { expandKimiSubagents, isKimiSpecPath, loadKimiAgentSpec } from "./KimiAgentSpec.ts"
import * as Fs from "./internal/Fs.ts"
import { decodeUtf8, normalizeText } from "./internal/Frontmatter.ts"
import { loadPlugins, type PluginInstruction } from "./Plugins.ts"
import { type RemoteAgentSpec, remoteSpecOf } from "./RemoteAgentFile.ts"
import { makeFileTrustStore, type TrustStore } from "./TrustStore.ts"

/**
 * Discovery and precedence: explicit (`--agent-file`) > project > extra > user > plugin >
 * built-in. The higher scope wins a name (`override` plays no part between files); within one
 * scope the first file in discovery order wins. A discovered file replaces a built-in only with
 * `override: true`, and a project file does so only in a trusted project. Every file that
 * loses a name is listed as shadowed, by the file (or built-in) that has it.
 */

export interface ResolveAgentsOptions {
  /** The working directory; the project root is its nearest ancestor containing `.git`. */
  readonly cwd: string
  /** `$DSH_HOME` (agents/, SYSTEM.md, trusted-projects.json). */
  readonly dshHome: string
  /** The real OS home, for `~/.agents/agents/` and `~` in `extraAgentDirs`. */
  readonly userHome: string
  /** `--agent-file`: loaded at the highest precedence; an invalid file fails the resolution. */
  readonly agentFile?: string | undefined
  /** `extra_agent_dirs` from config.toml: `~/…` is under `userHome`, relative paths under the project root. */
  readonly extraAgentDirs?: ReadonlyArray<string> | undefined
  /** Agent directories of enabled plugins (relative paths under `cwd`). */
  readonly pluginAgentDirs?: ReadonlyArray<string> | undefined
  /** Enabled plugins' directories (see `loadPlugins`): their agents at the plugin scope, their instructions as `${plugin_sections}`. */
  readonly plugins?: ReadonlyArray<string> | undefined
  /** `--trust-project`: trust the project for this resolution (persisting it is the caller's choice). */
  readonly trustProject?: boolean | undefined
  /** Defaults to the file store in `dshHome`. */
  readonly trustStore?: TrustStore | undefined
  /** Replaces the package's built-in agents directory. */
  readonly builtinAgentsDir?: string | undefined
  /**
   * `"a2a"`: the harness runs A2A agents, so Gemini CLI remote agent files (`kind: remote`) are
   * collected as `remoteAgents` (types `a2a:<name>`); without it they are skipped, saying how to
   * declare them.
   */
  readonly remoteAgents?: "a2a" | undefined
  /** Names a file may not take (built-in delegation types); default `RESERVED_AGENT_NAMES`. */
  readonly reservedNames?: ReadonlyArray<string> | undefined
}

/** Delegation types every dsh harness may have that are not agent files (`fork`; `acp:*`/`sdk:*` are not valid names anyway). */
export const RESERVED_AGENT_NAMES: ReadonlyArray<string> = ["fork"]

export interface SkippedAgentFile {
  readonly path: string
  readonly reason: string
}

/** A file that loaded but whose name another definition has: `by` is that one's source. */
export interface ShadowedAgentFile {
  readonly path: string
  readonly name: string
  readonly by: string
}

export interface ResolvedAgents {
  /** Sorted by name. */
  readonly agents: ReadonlyArray<AgentDefinition.AgentDefinition>
  readonly skipped: ReadonlyArray<SkippedAgentFile>
  /** Files that loaded but lost their name to a higher scope, an earlier file of the same scope, or a built-in. */
  readonly shadowed: ReadonlyArray<ShadowedAgentFile>
  /** Repairs, ignored fields, same-scope duplicates, built-in names without `override`, unreadable directories. */
  readonly warnings: ReadonlyArray<string>
  readonly projectRoot: string
  /** Whether project files may override built-ins: `trustProject`, or a recorded trust decision. */
  readonly projectTrusted: boolean
  /** What `${base_prompt}` stands for (see `renderAgentPrompt`). */
  readonly basePrompts: Template.BasePrompts
  /** The enabled plugins' instructions, for `${plugin_sections}`. */
  readonly pluginInstructions?: ReadonlyArray<PluginInstruction> | undefined
  /** Remote agent files taken for an A2A backend (see `remoteAgents` in the options). */
  readonly remoteAgents?: ReadonlyArray<RemoteAgentSpec> | undefined
}

/** `$DSH_HOME` from the environment, defaulting to `<userHome>/.dsh`. */
export const dshHomeFrom = (env: Readonly<Record<string, string | undefined>>, userHome: string): string =>
  env.DSH_HOME !== undefined && env.DSH_HOME !== "" ? Path.resolve(env.DSH_HOME) : Path.join(userHome, ".dsh")

const expandDir = (dir: string, userHome: string, base: string): string =>
  dir === "~" ? userHome : dir.startsWith("~/") ? Path.join(userHome, dir.slice(2)) : Path.resolve(base, dir)

export const resolveAgents = (options: ResolveAgentsOptions): Effect.Effect<ResolvedAgents, AgentDefinitionError> =>
  Effect.gen(function*() {
    const builtins = yield* loadBuiltinAgents({ dir: options.builtinAgentsDir })
    const builtinNames = new Set(builtins.map((a) => a.name))
    const builtinMain = builtins.find((a) => a.name === DEFAULT_AGENT_NAME)!
    const cwd = Path.resolve(options.cwd)
    const projectRoot = yield* findProjectRoot(cwd)
    const skipped: Array<SkippedAgentFile> = []
    const shadowed: Array<ShadowedAgentFile> = []
    const warnings: Array<string> = []
    const candidates: Array<AgentDefinition.AgentDefinition> = []
    const remoteAgents: Array<RemoteAgentSpec> = []

    if (options.agentFile !== undefined) candidates.push(...(yield* loadExplicit(Path.resolve(cwd, options.agentFile), warnings, skipped)))

    // Codex keeps its agent roles in `.codex/agents/*.toml`, beside `.agents/agents`.
    const userDirs = [Path.join(options.dshHome, "agents"), Path.join(options.userHome, ".agents", "agents"), Path.join(options.userHome, ".codex", "agents")]
      .map((d) => Path.resolve(d))
    // Running in the home directory without a repository makes `~/.agents/agents` look like a
    // project directory too; it is the user's own, so it keeps the user scope.
    const projectDirs = [Path.join(projectRoot, ".dsh", "agents"), Path.join(projectRoot, ".agents", "agents"), Path.join(projectRoot, ".codex", "agents")]
      .filter((d) => !userDirs.includes(d))
    const extraDirs = (options.extraAgentDirs ?? []).map((d) => expandDir(d, options.userHome, projectRoot))
    const plugins = yield* loadPlugins(options.plugins ?? [], cwd)
    warnings.push(...plugins.warnings)
    const pluginDirs = [...(options.pluginAgentDirs ?? []).map((d) => Path.resolve(cwd, d)), ...plugins.agentDirs]

    // A directory named in two scopes (an extra dir that is also a project dir) is read once,
    // in the higher scope.
    const scanned = new Set<string>()
    const scan = (dirs: ReadonlyArray<string>, scope: AgentDefinition.AgentScope) =>
      Effect.gen(function*() {
        const fresh = dirs.filter((d) => !scanned.has(d))
        fresh.forEach((d) => scanned.add(d))
        for (const s of yield* Effect.forEach(fresh, (dir) => scanAgentDir(dir, scope))) {
          warnings.push(...s.warnings)
          for (const r of [...s.results, ...s.extra]) {
            if (r._tag === "Invalid") {
              const remote = remoteSpecOf(r)
              if (remote !== undefined && options.remoteAgents === "a2a") remoteAgents.push(remote)
              else skipped.push({ path: r.path, reason: r.reason })
            } else {
              warnings.push(...r.warnings.map((w) => `${r.definition.source}: ${w}`))
              candidates.push(r.definition)
            }
          }
        }
      })

    yield* scan(projectDirs, "project")
    yield* scan(extraDirs, "extra")
    const systemMd = yield* readSystemMd(options.dshHome, warnings)
    if (systemMd !== undefined) {
      candidates.push({ ...builtinMain, systemPrompt: systemMd.template, scope: "user", source: systemMd.path, override: true })
    }
    yield* scan(userDirs, "user")
    yield* scan(pluginDirs, "plugin")
    candidates.push(...builtins)

    const needsTrust = candidates.some((c) => c.scope === "project" && builtinNames.has(c.name) && c.override)
    // A broken trust store only matters (and is only reported) when a project file needs trust.
    const projectTrusted = options.trustProject === true ||
      (yield* isTrusted(options, projectRoot, needsTrust ? warnings : []))

    const reserved = new Set(options.reservedNames ?? RESERVED_AGENT_NAMES)
    const winners = new Map<string, AgentDefinition.AgentDefinition>()
    for (const candidate of candidates) {
      const { name, scope, source } = candidate
      if (scope !== "builtin" && reserved.has(name)) {
        skipped.push({ path: source, reason: `the name "${name}" is reserved for a built-in delegation type; rename the agent` })
        continue
      }
      if (scope !== "builtin" && scope !== "explicit" && builtinNames.has(name)) {
        if (!candidate.override) {
          warnings.push(`${source}: agent "${name}" has the name of a built-in agent but does not declare override: true; the built-in is used`)
          shadowed.push({ path: source, name, by: `builtin:${name}` })
          continue
        }
        if (scope === "project" && !projectTrusted) {
          skipped.push({
            path: source,
            reason: `project agent overrides built-in "${name}" but the project is not trusted (run with --trust-project)`
          })
          continue
        }
      }
      const winner = winners.get(name)
      if (winner !== undefined) {
        // Built-ins a file overrides are not files: only files are listed as shadowed.
        if (scope !== "builtin") shadowed.push({ path: source, name, by: winner.source })
        // A higher scope winning is precedence; two files of one scope are a clash to fix.
        if (winner.scope === scope && winner.source !== systemMd?.path) warnings.push(`${source}: agent "${name}" is also defined by ${winner.source} in the same (${scope}) scope; that one is used`)
        continue
      }
      winners.set(name, candidate)
    }

    return {
      agents: [...winners.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      skipped,
      shadowed,
      warnings,
      projectRoot,
      projectTrusted,
      basePrompts: { builtin: builtinMain.systemPrompt, systemMd },
      pluginInstructions: plugins.instructions,
      remoteAgents
    }
  })

/**
 * `--agent-file`: one Markdown agent file or Kimi agent spec, which must load. A spec's declared
 * subagents load with it (at the same precedence, for this run); those that do not are skipped.
 */
const loadExplicit = (path: string, warnings: Array<string>, skipped: Array<SkippedAgentFile>) =>
  Effect.gen(function*() {
    const info = yield* Fs.stat(path).pipe(Effect.result)
    if (info._tag === "Failure") {
      return yield* new AgentDefinitionError({
        reason: Fs.isMissing(info.failure) ? "NotFound" : "InvalidFile",
        detail: Fs.isMissing(info.failure) ? "agent file not found" : `cannot read agent file: ${info.failure.message}`,
        path
      })
    }
    const loaded = isCodexRolePath(path)
      ? { main: yield* loadCodexRole(path, "explicit"), declared: [], notes: [] }
      : isKimiSpecPath(path)
      ? yield* Effect.flatMap(loadKimiAgentSpec(path, "explicit"), (main) =>
        Effect.map(expandKimiSubagents([main], "explicit"), (e) => ({ main: main.result, declared: e.extra, notes: e.warnings })))
      : { main: yield* loadAgentFile(path, "explicit").pipe(Effect.catch((failure) => Effect.succeed<AgentFileResult>({ _tag: "Invalid", path, reason: `cannot read agent file: ${failure.message}` }))), declared: [], notes: [] }
    if (loaded.main._tag === "Invalid") return yield* new AgentDefinitionError({ reason: "InvalidFile", detail: loaded.main.reason, path })
    warnings.push(...loaded.main.warnings.map((w) => `${path}: ${w}`), ...loaded.notes)
    const definitions: Array<AgentDefinition.AgentDefinition> = [loaded.main.definition]
    for (const r of loaded.declared) {
      if (r._tag === "Invalid") skipped.push({ path: r.path, reason: r.reason })
      else {
        warnings.push(...r.warnings.map((w) => `${r.definition.source}: ${w}`))
        definitions.push(r.definition)
      }
    }
    return definitions
  })

/** `$DSH_HOME/SYSTEM.md`: plain Markdown, used when present and not blank; a read failure warns. */
const readSystemMd = (dshHome: string, warnings: Array<string>) =>
  Effect.gen(function*() {
    const path = Path.join(dshHome, "SYSTEM.md")
    const read = yield* Fs.readBounded(path, AgentName.MAX_SYSTEM_PROMPT_CHARS * 4).pipe(Effect.result)
    if (read._tag === "Failure") {
      if (!Fs.isMissing(read.failure)) {
        warnings.push(`${path}: cannot read SYSTEM.md (${read.failure.message}); using the built-in prompt`)
      }
      return undefined
    }
    const { bytes, truncated } = read.success
    const decoded = decodeUtf8(bytes)
    if (decoded === undefined || decoded.includes("\u0000")) {
      warnings.push(`${path}: SYSTEM.md is not UTF-8 text; using the built-in prompt`)
      return undefined
    }
    const text = normalizeText(decoded)
    if (truncated || text.length > AgentName.MAX_SYSTEM_PROMPT_CHARS) {
      warnings.push(`${path}: SYSTEM.md is over the ${AgentName.MAX_SYSTEM_PROMPT_CHARS}-character limit; using the built-in prompt`)
      return undefined
    }
    return text.trim() === "" ? undefined : { path, template: text.trim() }
  })

const isTrusted = (options: ResolveAgentsOptions, projectRoot: string, warnings: Array<string>) => {
  const store = options.trustStore ?? makeFileTrustStore(options.dshHome)
  return store.isTrusted(projectRoot).pipe(
    Effect.catch((error) => {
      warnings.push(`${error.message}; the project is treated as not trusted`)
      return Effect.succeed(false)
    })
  )
}

/** The agent named `name`, or an `UnknownAgent` error listing the available names. */
export const findAgent = (resolved: ResolvedAgents, name: string): Effect.Effect<AgentDefinition.AgentDefinition, AgentDefinitionError> => {
  const agent = resolved.agents.find((a) => a.name === name)
  return agent !== undefined
    ? Effect.succeed(agent)
    : Effect.fail(
      new AgentDefinitionError({
        reason: "UnknownAgent",
        detail: `unknown agent "${name}"`,
        available: resolved.agents.map((a) => a.name)
      })
    )
}

/** Whether the `subagent` tool may offer this agent (a `primary`-only agent is not offered). */
export const isDelegable = (agent: AgentDefinition.AgentDefinition): boolean =>
  agent.mode !== "primary" && agent.name !== DEFAULT_AGENT_NAME

/**
 * The `dsh agents list --json` document. List fields are `null` for "all" so the key is always
 * present; `[]` still means "none".
 */
export const agentsListJson = (resolved: ResolvedAgents) => ({
  agents: resolved.agents.map((a) => ({
    name: a.name,
    description: a.description,
    scope: a.scope,
    source: a.source,
    tools: a.tools ?? null,
    disallowedTools: a.disallowedTools ?? null,
    subagents: a.subagents ?? null,
    override: a.override,
    /** As the file names it (`sonnet`, `inherit`, …); null: the default for children, else the caller's. */
    model: a.model ?? null,
    /**
     * Whom `disallowedTools` bind: the agent and every agent under it, of any backend (`tools`
     * binds the agent alone); null without `disallowedTools`.
     */
    disallowedToolsBind: a.disallowedTools === undefined || a.disallowedTools.length === 0 ? null : "subtree" as const
  })),
  skipped: resolved.skipped.map((s) => ({ path: s.path, reason: s.reason })),
  shadowed: resolved.shadowed.map((s) => ({ path: s.path, name: s.name, by: s.by })),
  warnings: [...resolved.warnings]
})

/** The `dsh agents list --json` document's shape. */
export type AgentsListJson = ReturnType<typeof agentsListJson>
