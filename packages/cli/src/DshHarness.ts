import { type CheckedModels, childHooksToml, type FileAgentsOptions, Harness, type HarnessOptions, providerEnvNames, providersToml, sharedFileAgents } from "@dsh/harness"
import { normalizeLimits, type SubagentProvider } from "@dsh/subagent"
import { type A2aAgentFile, configuredA2aAgents, makeA2aBackend } from "@dsh/subagent-a2a"
import { type AcpAgentConfig, DSH_CHILD_ENV, dshAcpAgent, makeAcpBackend } from "@dsh/subagent-acp"
import { forwardedEnv, makeDshSdkBackend } from "@dsh/subagent-dsh-sdk"
import { ForkBackend, SpawnProvider } from "@dsh/subagent-inprocess"
import { makeSandbox, ProcessLauncher, type ProcessLauncherShape, type SandboxShape } from "@dsh/subprocess"
import { discoverSkills, makeBuiltinToolsWith, renderSkillList, type SkillRoots } from "@dsh/tools-builtin"
import { Duration, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { residentDir } from "@dsh/cli-resident"
import { cliAgentHooks, cliHooks } from "./Hooks.ts"
import { cliPermissions, type PermissionFlags } from "./Permissions.ts"

/**
 * How to start this CLI again (for `sdk:dsh` and `acp:dsh` children): the running Node and the
 * CLI's entry next to this module, the bundle's `dist/main.js`, or `src/main.ts` from source.
 */
export const selfCommand = (): { readonly command: string; readonly args: ReadonlyArray<string> } => {
  const here = dirname(fileURLToPath(import.meta.url))
  const bundled = join(here, "main.js")
  return existsSync(bundled)
    ? { command: process.execPath, args: [bundled] }
    : { command: process.execPath, args: ["--conditions=@dsh/source", join(here, "main.ts")] }
}

/**
 * The built-in agent files shipped inside the CLI's bundle (`dist/agents`, copied from
 * `@dsh/agent-files` at build time), so an installed CLI needs no other package. From source there
 * is none and `@dsh/agent-files`' own directory is used.
 */
const bundledAgentsDir = (): string | undefined => {
  const dir = fileURLToPath(new URL("./agents", import.meta.url))
  return existsSync(dir) ? dir : undefined
}

/** Where the CLI looks for agent files: `$DSH_HOME`, the OS home, config's extra dirs, its bundled built-ins. */
export const agentFiles = (ctx: CliContext, config: DshConfig): FileAgentsOptions => ({
  dshHome: ctx.home,
  userHome: ctx.env.HOME ?? homedir(),
  extraAgentDirs: config.extraAgentDirs,
  pluginAgentDirs: config.pluginAgentDirs.map((d) => (d.startsWith("~/") ? join(ctx.env.HOME ?? homedir(), d.slice(2)) : d)),
  builtinAgentsDir: bundledAgentsDir(),
  env: ctx.env,
  skills: (cwd) => Effect.map(discoverSkills(cwd, skillRoots(ctx)), renderSkillList)
})

/** Where skills are found besides the project's `.agents/skills/`: `~/.agents/skills/`, `$DSH_HOME/skills/`. */
export const skillRoots = (ctx: CliContext): SkillRoots => ({ dshHome: ctx.home, userHome: ctx.env.HOME ?? homedir() })

/**
 * The reference harness's backends: `spawn`, `fork`, `sdk:dsh`, `acp:dsh` and the
 * `[acp.agents.*]` of config.toml (built over the context's `ProcessLauncher`; nothing starts).
 * `sandbox` confines `[acp.agents.*] sandbox = true` agents (listings need none); `cluster` (a
 * provider built by `@dsh/subagent-cluster`'s `makeClusterProvider`) joins them. `remoteFiles`
 * are the Gemini CLI remote agent files (`kind: remote`) found, `a2a:<name>` types unless
 * `[a2a.agents.<name>]` has that name.
 */
export const dshBackends = <R = never>(
  ctx: CliContext,
  config: DshConfig,
  configured: ReadonlyArray<AcpAgentConfig>,
  sandbox?: SandboxShape | undefined,
  cluster?: Effect.Effect<SubagentProvider, never, R> | undefined,
  remoteFiles: Effect.Effect<ReadonlyArray<A2aAgentFile>> = Effect.succeed([])
) => {
  const self = selfCommand()
  const maxDepth = normalizeLimits(config.limits).maxDepth
  // Children are dsh processes with private homes: they get the parent's `[providers]`
  // (searched where the parent searches) and the variables those read.
  const providerEnv = providerEnvNames(config.providers)
  // …and the hooks of the tree that concern their own agents (tool calls, their own children).
  const childToml = (config.providers.length === 0 ? "" : providersToml(config.providers, ctx)) + childHooksToml(config.hooks)
  const configToml = childToml === "" ? undefined : childToml
  const builtinAcp = dshAcpAgent({
    command: self.command,
    args: self.args,
    maxDepth,
    sandbox: config.sandbox,
    configToml,
    passEnv: [...DSH_CHILD_ENV, ...providerEnv]
  })
  return Effect.all([
    Effect.succeed(SpawnProvider),
    Effect.succeed(ForkBackend),
    // Out-of-process dsh children get the model credentials explicitly (the environment is
    // scrubbed) and the depth left below them.
    makeDshSdkBackend({
      command: self.command,
      args: [...self.args, "sdk"],
      env: { ...forwardedEnv(ctx.env), ...Object.fromEntries(providerEnv.flatMap((n) => ctx.env[n] === undefined ? [] : [[n, ctx.env[n]!]])) },
      childConfigToml: configToml,
      childLimits: (context) => ({ maxDepth: context.limits.maxDepth - (context.parent.depth + 1) }),
      childSandbox: config.sandbox
    }),
    // A config entry named `dsh` replaces the built-in `acp:dsh`.
    makeAcpBackend({
      agents: [...(configured.some((a) => a.name === "dsh") ? [] : [builtinAcp]), ...configured],
      parentEnv: ctx.env,
      sandbox,
      keepAlive: config.acpKeepAliveSeconds === undefined ? undefined : Duration.seconds(config.acpKeepAliveSeconds)
    }),
    // `[a2a.agents.*]`: each card is read once here (bounded); an agent whose card cannot be
    // used is no type, and its reason is in the backend's `statuses` (`dsh agents list`).
    Effect.flatMap(remoteFiles, (files) => makeA2aBackend({ agents: configuredA2aAgents(config.raw, files).agents, environment: ctx.env })),
    ...(cluster === undefined ? [] : [cluster])
  ])
}

/** config.toml as the harness needs it: the settings, the usable `[acp.agents.*]`, the checked model settings. */
export interface HarnessSettings {
  readonly config: DshConfig
  readonly acpAgents: ReadonlyArray<AcpAgentConfig>
  readonly models: CheckedModels
}

/**
 * The reference harness: agent files, every backend (see `dshBackends`; ACP children kept warm
 * for `[acp] keep_alive_seconds`), the built-in tools with Bash's environment from `[bash] env`
 * and Bash in `sandbox`, the permission rules of config, the trusted project and the flags, the
 * default model from config, `DSH_MODEL` or `scripted`, children's model from `[subagents]
 * model` and prices from `[pricing.*]`; Gemini CLI remote agent files are `a2a:<name>` types. With `cluster`, the catalog's delegates run through it
 * on the cluster's runners, and children are admitted through the session's state.
 */
export const dshHarnessOptions = <R = never>(
  ctx: CliContext,
  { config, acpAgents, models }: HarnessSettings,
  options: {
    readonly sandbox: SandboxShape
    /** Runs command hooks (`[[hooks.*]]`); without it none run. */
    readonly launcher?: ProcessLauncherShape | undefined
    readonly flags?: PermissionFlags | undefined
    readonly cluster?: Effect.Effect<SubagentProvider, never, R> | undefined
  }
): HarnessOptions<never, ProcessLauncher | R> => {
  const bashEnv = Object.fromEntries(config.bashEnv.flatMap((name) => (ctx.env[name] === undefined ? [] : [[name, ctx.env[name]!]])))
  // Read once for both: the A2A backend needs the remote agent files before the first session.
  const files = sharedFileAgents(agentFiles(ctx, config), ctx.cwd)
  return {
    agents: files.agents,
    backends: dshBackends(ctx, config, acpAgents, options.sandbox, options.cluster, files.remoteAgents),
    tools: makeBuiltinToolsWith({ env: bashEnv, sandbox: options.sandbox, skills: skillRoots(ctx) }),
    permissions: cliPermissions(ctx, config, options.flags),
    ...(options.launcher === undefined ? {} : { hooks: cliHooks(ctx, config, options.launcher), agentHooks: cliAgentHooks(options.launcher) }),
    model: config.model ?? ctx.env.DSH_MODEL ?? "scripted",
    modelConfig: { env: ctx.env, cwd: ctx.cwd },
    subagentModel: models.subagentModel,
    agentModels: models.agentModels,
    pricing: models.pricing,
    ...(options.cluster === undefined ? {} : { delegatesRunOn: "cluster", sharedAdmission: true })
  }
}

/**
 * One sandbox for Bash of every agent and `[acp.agents.*] sandbox = true` (bwrap is probed once,
 * at first use). A confined command never sees the resident dsh's sockets, even from a working
 * directory of /tmp: through them it could have commands run unconfined.
 */
export const withSandbox = <A, E, R>(config: DshConfig, build: (sandbox: SandboxShape, launcher: ProcessLauncherShape) => Layer.Layer<A, E, R>) => {
  const uid = process.getuid?.()
  const hidden = uid === undefined ? [] : [residentDir(uid)]
  return Layer.unwrap(Effect.flatMap(ProcessLauncher, (launcher) => Effect.map(makeSandbox(config.sandbox, launcher, { hidden }), (sandbox) => build(sandbox, launcher))))
}

/** The reference harness as the `AgentHost` (see `dshHarnessOptions`). */
export const dshHarnessLayer = (ctx: CliContext, settings: HarnessSettings, flags?: PermissionFlags | undefined) =>
  withSandbox(settings.config, (sandbox, launcher) => Harness.layer(dshHarnessOptions(ctx, settings, { sandbox, launcher, flags })))
