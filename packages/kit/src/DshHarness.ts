import type { AgentHost } from "@dsh/agent"
import type { Registry } from "@dsh/core"
import { type CatalogRequest, FileAgents, Harness, HarnessConfig, type HarnessOptions, type ModelsConfig, ProjectConfig, ProviderPackages } from "@dsh/harness"
import type { ModelRegistry } from "@dsh/llm"
import type { SessionStore } from "@dsh/session"
import { Limits, type Vocabulary } from "@dsh/subagent"
import { type A2aAgentConfig, A2aAgentListing, A2aProvider } from "@dsh/subagent-a2a"
import { AcpAgentConfig, AcpProvider } from "@dsh/subagent-acp"
import { DshSdkOptions, DshSdkProvider } from "@dsh/subagent-dsh-sdk"
import { ForkProvider, SpawnProvider } from "@dsh/subagent-inprocess"
import { ProcessLauncher, Sandbox } from "@dsh/subprocess"
import { type Hooks, PermissionPolicy } from "@dsh/tools"
import { BuiltinTools, CommandHooks, Skills } from "@dsh/tools-builtin"
import { Duration, Effect, Layer } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"
import * as DshModels from "./DshModels.ts"

/**
 * How this harness is installed: the command that starts it again (for `sdk:dsh` and `acp:dsh`
 * children), the built-in agent files it ships, the paths a sandboxed command must never see
 * (e.g. a resident's sockets), and where warnings about agent files' hooks go.
 */
export interface DshInstall {
  readonly self: { readonly command: string; readonly args: ReadonlyArray<string> }
  readonly builtinAgentsDir?: string | undefined
  readonly hidden?: ReadonlyArray<string> | undefined
  /** Default: a `dsh: warning: …` line on stderr. */
  readonly onWarning?: ((line: string) => void) | undefined
}

/** config.toml as the harness needs it: the settings, the usable `[acp.agents.*]`, the checked model settings. */
export interface DshSettings {
  readonly config: HarnessConfig.HarnessConfig
  readonly acpAgents: ReadonlyArray<AcpAgentConfig.AcpAgentConfig>
  readonly models: ModelsConfig.CheckedModels
}

/** A loaded config.toml checked: an invalid `[acp.agents.*]` entry or model setting fails naming its key. */
export const settings = (place: DshModels.DshPlace, config: HarnessConfig.HarnessConfig): Effect.Effect<DshSettings, AcpAgentConfig.AcpConfigError | HarnessConfig.ConfigError | Registry.RegistryError> =>
  Effect.gen(function*() {
    const acpAgents = yield* AcpAgentConfig.decodeAcpAgents(config.raw, join(place.home, "config.toml"))
    return { config, acpAgents, models: yield* DshModels.check(place, config) }
  })

const userHome = (place: DshModels.DshPlace): string => place.env.HOME ?? homedir()

/** Where skills are found besides the project's `.agents/skills/`: `~/.agents/skills/`, `$DSH_HOME/skills/`. */
export const skillRoots = (place: DshModels.DshPlace): Skills.SkillRoots => ({ dshHome: place.home, userHome: userHome(place) })

/** Where agent files are found: `$DSH_HOME`, the OS home, config's extra and plugin dirs, the install's built-ins. */
export const agentFiles = (place: DshModels.DshPlace, config: HarnessConfig.HarnessConfig, install?: Pick<DshInstall, "builtinAgentsDir">): FileAgents.FileAgentsOptions => ({
  dshHome: place.home,
  userHome: userHome(place),
  extraAgentDirs: config.extraAgentDirs,
  pluginAgentDirs: config.pluginAgentDirs.map((d) => (d.startsWith("~/") ? join(userHome(place), d.slice(2)) : d)),
  builtinAgentsDir: install?.builtinAgentsDir,
  env: place.env,
  skills: (cwd) => Effect.map(Skills.discoverSkills(cwd, skillRoots(place)), Skills.renderSkillList)
})

/** A session's rules: the user's config, the trusted project's, then the flags of this invocation. */
export const permissions = (place: DshModels.DshPlace, config: HarnessConfig.HarnessConfig, flags: PermissionPolicy.PermissionSettings | undefined) => (request: CatalogRequest.CatalogRequest) =>
  Effect.map(
    ProjectConfig.projectPermissions(place.home, request.cwd, request.extra.trustProject === true),
    (project): PermissionPolicy.PermissionSettings => PermissionPolicy.mergeSettings(config.permissions, project, flags)
  )

/** A session's command hooks: the user's `config.toml`, then the trusted project's. */
export const hooks = (place: DshModels.DshPlace, config: HarnessConfig.HarnessConfig, launcher: ProcessLauncher.ProcessLauncherShape) => (request: CatalogRequest.CatalogRequest): Effect.Effect<ReadonlyArray<Hooks.HookRegistration>, AgentHost.HostError> =>
  Effect.map(
    ProjectConfig.projectHooks(place.home, request.cwd, request.extra.trustProject === true),
    (project) => [...config.hooks, ...project].map((spec) => CommandHooks.commandHook(launcher, spec))
  )

/**
 * An agent file's `hooks` frontmatter (Claude Code's shape) as command hooks for that agent;
 * a malformed entry is skipped with a warning naming it.
 */
export const agentHooks = (launcher: ProcessLauncher.ProcessLauncherShape, onWarning: (line: string) => void) => (agent: string, hooks: Readonly<Record<string, unknown>>): ReadonlyArray<Hooks.HookRegistration> => {
  const problems: Array<string> = []
  const specs = HarnessConfig.decodeClaudeHooks({ hooks }, (key, what) => {
    problems.push(`agent ${agent}: ${key} ${what}`)
    return undefined
  })
  for (const p of problems) onWarning(`${p} (the hook is ignored)`)
  return specs.map((spec) => CommandHooks.commandHook(launcher, spec))
}

/**
 * dsh's backends: `spawn`, `fork`, `sdk:dsh`, `acp:dsh` and the `[acp.agents.*]` of config.toml
 * (built over the context's `ProcessLauncher`; nothing starts). `sandbox` confines
 * `[acp.agents.*] sandbox = true` agents (listings need none); `cluster` (a provider of
 * `@dsh/subagent-cluster`) joins them. `remoteFiles` are the Gemini CLI remote agent files
 * (`kind: remote`) found, `a2a:<name>` types unless `[a2a.agents.<name>]` has that name.
 */
export const backends = <R = never>(
  place: DshModels.DshPlace,
  config: HarnessConfig.HarnessConfig,
  configured: ReadonlyArray<AcpAgentConfig.AcpAgentConfig>,
  install: DshInstall,
  options: {
    readonly sandbox?: Sandbox.SandboxShape | undefined
    readonly cluster?: Effect.Effect<Vocabulary.SubagentProvider, never, R> | undefined
    readonly remoteFiles?: Effect.Effect<ReadonlyArray<A2aAgentConfig.A2aAgentFile>> | undefined
  } = {}
) => {
  const { self } = install
  const maxDepth = Limits.normalizeLimits(config.limits).maxDepth
  // Children are dsh processes with private homes: they get the parent's `[providers]`
  // (searched where the parent searches) and the variables those read…
  const providerEnv = ProviderPackages.providerEnvNames(config.providers)
  // …and the hooks of the tree that concern their own agents (tool calls, their own children).
  const childToml = (config.providers.length === 0 ? "" : ProviderPackages.providersToml(config.providers, place)) + ProjectConfig.childHooksToml(config.hooks)
  const configToml = childToml === "" ? undefined : childToml
  const builtinAcp = AcpAgentConfig.dshAcpAgent({
    command: self.command,
    args: self.args,
    maxDepth,
    sandbox: config.sandbox,
    configToml,
    passEnv: [...AcpAgentConfig.DSH_CHILD_ENV, ...providerEnv]
  })
  return Effect.all([
    Effect.succeed(SpawnProvider.SpawnProvider),
    Effect.succeed(ForkProvider.ForkBackend),
    // Out-of-process dsh children get the model credentials explicitly (the environment is
    // scrubbed) and the depth left below them.
    DshSdkProvider.makeDshSdkBackend({
      command: self.command,
      args: [...self.args, "sdk"],
      env: { ...DshSdkOptions.forwardedEnv(place.env), ...Object.fromEntries(providerEnv.flatMap((n) => place.env[n] === undefined ? [] : [[n, place.env[n]!]])) },
      childConfigToml: configToml,
      childLimits: (context) => ({ maxDepth: context.limits.maxDepth - (context.parent.depth + 1) }),
      childSandbox: config.sandbox
    }),
    // A config entry named `dsh` replaces the built-in `acp:dsh`.
    AcpProvider.makeAcpBackend({
      agents: [...(configured.some((a) => a.name === "dsh") ? [] : [builtinAcp]), ...configured],
      parentEnv: place.env,
      sandbox: options.sandbox,
      keepAlive: config.acpKeepAliveSeconds === undefined ? undefined : Duration.seconds(config.acpKeepAliveSeconds)
    }),
    // `[a2a.agents.*]`: each card is read once here (bounded); an agent whose card cannot be
    // used is no type, and its reason is in the backend's `statuses` (`dsh agents list`).
    Effect.flatMap(options.remoteFiles ?? Effect.succeed([]), (files) => A2aProvider.makeA2aBackend({ agents: A2aAgentListing.configuredA2aAgents(config.raw, files).agents, environment: place.env })),
    ...(options.cluster === undefined ? [] : [options.cluster])
  ])
}

/**
 * dsh's harness options: agent files, every backend (see `backends`; ACP children kept warm for
 * `[acp] keep_alive_seconds`), the built-in tools with Bash's environment from `[bash] env` and
 * Bash in `sandbox`, the permission rules of config, the trusted project and the flags, the
 * default model from config, `DSH_MODEL` or `scripted`, children's model from `[subagents] model`
 * and prices from `[pricing.*]`. With `cluster`, the catalog's delegates run through it on the
 * cluster's runners, and children are admitted through the session's state.
 */
export const options = <R = never>(
  place: DshModels.DshPlace,
  { config, acpAgents, models }: DshSettings,
  install: DshInstall,
  using: {
    readonly sandbox: Sandbox.SandboxShape
    /** Runs command hooks (`[[hooks.*]]`); without it none run. */
    readonly launcher?: ProcessLauncher.ProcessLauncherShape | undefined
    readonly flags?: PermissionPolicy.PermissionSettings | undefined
    readonly cluster?: Effect.Effect<Vocabulary.SubagentProvider, never, R> | undefined
  }
): HarnessOptions.HarnessOptions<never, ProcessLauncher.ProcessLauncher | R> => {
  const bashEnv = Object.fromEntries(config.bashEnv.flatMap((name) => (place.env[name] === undefined ? [] : [[name, place.env[name]!]])))
  // Read once for both: the A2A backend needs the remote agent files before the first session.
  const files = FileAgents.sharedFileAgents(agentFiles(place, config, install), place.cwd)
  const warn = install.onWarning ?? ((line: string) => void process.stderr.write(`dsh: warning: ${line}\n`))
  return {
    agents: files.agents,
    backends: backends(place, config, acpAgents, install, { sandbox: using.sandbox, cluster: using.cluster, remoteFiles: files.remoteAgents }),
    tools: BuiltinTools.makeWith({ env: bashEnv, sandbox: using.sandbox, skills: skillRoots(place) }),
    permissions: permissions(place, config, using.flags),
    ...(using.launcher === undefined ? {} : { hooks: hooks(place, config, using.launcher), agentHooks: agentHooks(using.launcher, warn) }),
    model: config.model ?? place.env.DSH_MODEL ?? "scripted",
    modelConfig: { env: place.env, cwd: place.cwd },
    subagentModel: models.subagentModel,
    agentModels: models.agentModels,
    pricing: models.pricing,
    ...(using.cluster === undefined ? {} : { delegatesRunOn: "cluster", sharedAdmission: true })
  }
}

/**
 * One sandbox for Bash of every agent and `[acp.agents.*] sandbox = true` (bwrap is probed once,
 * at first use), built over the context's launcher; the install's `hidden` paths are never
 * visible to a confined command.
 */
export const withSandbox = <A, E, R>(
  config: HarnessConfig.HarnessConfig,
  install: Pick<DshInstall, "hidden">,
  build: (sandbox: Sandbox.SandboxShape, launcher: ProcessLauncher.ProcessLauncherShape) => Layer.Layer<A, E, R>
) =>
  Layer.unwrap(Effect.flatMap(ProcessLauncher.ProcessLauncher, (launcher) =>
    Effect.map(Sandbox.make(config.sandbox, launcher, { hidden: install.hidden ?? [] }), (sandbox) => build(sandbox, launcher))))

/**
 * dsh's harness as the `AgentHost`, with the tree limits, retry policy and models its settings
 * configure; `flags` (a mode, rules) join the configured permission rules.
 */
export const layer = (
  place: DshModels.DshPlace,
  dshSettings: DshSettings,
  install: DshInstall,
  flags?: PermissionPolicy.PermissionSettings | undefined
): Layer.Layer<AgentHost.AgentHost | ModelRegistry.ModelRegistry, Registry.RegistryError, SessionStore.SessionStore | ProcessLauncher.ProcessLauncher> =>
  withSandbox(dshSettings.config, install, (sandbox, launcher) => Harness.layer(options(place, dshSettings, install, { sandbox, launcher, flags }))).pipe(
    Layer.provideMerge(HarnessConfig.configLayer(dshSettings.config)),
    Layer.provideMerge(DshModels.registryLayer(dshSettings.config, place))
  )
