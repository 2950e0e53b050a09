import { type CheckedModels, fileAgents, type FileAgentsOptions, Harness } from "@dsh/harness"
import { normalizeLimits } from "@dsh/subagent"
import { type AcpAgentConfig, dshAcpAgent, makeAcpBackend } from "@dsh/subagent-acp"
import { forwardedEnv, makeDshSdkBackend } from "@dsh/subagent-dsh-sdk"
import { ForkBackend } from "@dsh/subagent-fork"
import { SpawnProvider } from "@dsh/subagent-spawn"
import { makeSandbox, ProcessLauncher, type SandboxShape } from "@dsh/subprocess"
import { makeBuiltinToolsWith } from "@dsh/tools-builtin"
import { Duration, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
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
 * `@dsh/agent` at build time), so an installed CLI needs no other package. From source there
 * is none and `@dsh/agent`'s own directory is used.
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
  builtinAgentsDir: bundledAgentsDir(),
  env: ctx.env
})

/**
 * The reference harness's backends: `spawn`, `fork`, `sdk:dsh`, `acp:dsh` and the
 * `[acp.agents.*]` of config.toml (built over the context's `ProcessLauncher`; nothing starts).
 * `sandbox` confines `[acp.agents.*] sandbox = true` agents (listings need none).
 */
export const dshBackends = (ctx: CliContext, config: DshConfig, configured: ReadonlyArray<AcpAgentConfig>, sandbox?: SandboxShape | undefined) => {
  const self = selfCommand()
  const maxDepth = normalizeLimits(config.limits).maxDepth
  const builtinAcp = dshAcpAgent({ command: self.command, args: self.args, maxDepth, sandbox: config.sandbox })
  return Effect.all([
    Effect.succeed(SpawnProvider),
    Effect.succeed(ForkBackend),
    // Out-of-process dsh children get the model credentials explicitly (the environment is
    // scrubbed) and the depth left below them.
    makeDshSdkBackend({
      command: self.command,
      args: [...self.args, "sdk"],
      env: forwardedEnv(ctx.env),
      childLimits: (context) => ({ maxDepth: context.tree.limits.maxDepth - (context.parent.depth + 1) }),
      childSandbox: config.sandbox
    }),
    // A config entry named `dsh` replaces the built-in `acp:dsh`.
    makeAcpBackend({
      agents: [...(configured.some((a) => a.name === "dsh") ? [] : [builtinAcp]), ...configured],
      parentEnv: ctx.env,
      sandbox,
      keepAlive: config.acpKeepAliveSeconds === undefined ? undefined : Duration.seconds(config.acpKeepAliveSeconds)
    })
  ])
}

/**
 * The reference harness: agent files, every backend (`spawn`, `fork`, `sdk:dsh`, `acp:dsh` and
 * the `[acp.agents.*]` of config.toml, kept warm for `[acp] keep_alive_seconds`), the built-in
 * tools with Bash's environment from `[bash] env` and Bash in the `[sandbox]`, the permission
 * rules of config, the trusted project and the flags, the default model from config,
 * `DSH_MODEL` or `scripted`, children's model from `[subagents] model` and prices from
 * `[pricing.*]`.
 */
export const dshHarnessLayer = (
  ctx: CliContext,
  config: DshConfig,
  configured: ReadonlyArray<AcpAgentConfig>,
  models: CheckedModels,
  flags?: PermissionFlags | undefined
) => {
  const bashEnv = Object.fromEntries(config.bashEnv.flatMap((name) => (ctx.env[name] === undefined ? [] : [[name, ctx.env[name]!]])))
  // One sandbox for Bash of every agent and for `[acp.agents.*] sandbox = true` (bwrap is probed once, at first use).
  return Layer.unwrap(Effect.map(Effect.flatMap(ProcessLauncher, (launcher) => makeSandbox(config.sandbox, launcher)), (sandbox) => Harness.layer({
    agents: fileAgents(agentFiles(ctx, config)),
    backends: dshBackends(ctx, config, configured, sandbox),
    tools: makeBuiltinToolsWith({ env: bashEnv, sandbox }),
    permissions: cliPermissions(ctx, config, flags),
    model: config.model ?? ctx.env.DSH_MODEL ?? "scripted",
    modelConfig: { env: ctx.env, cwd: ctx.cwd },
    subagentModel: models.subagentModel,
    pricing: models.pricing
  })))
}
