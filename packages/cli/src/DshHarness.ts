import { fileAgents, type FileAgentsOptions, Harness, type HarnessOptions } from "@dsh/harness"
import type { ProcessLauncher } from "@dsh/subprocess"
import { normalizeLimits, type SubagentProvider } from "@dsh/subagent"
import { acpAgentsFromConfig, dshAcpAgent, makeAcpBackend } from "@dsh/subagent-acp"
import { forwardedEnv, makeDshSdkBackend } from "@dsh/subagent-dsh-sdk"
import { ForkBackend } from "@dsh/subagent-fork"
import { SpawnProvider } from "@dsh/subagent-spawn"
import { makeBuiltinToolsWith } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"

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
 * The reference harness: agent files, every backend (`spawn`, `fork`, `sdk:dsh`, `acp:dsh` and
 * the `[acp.agents.*]` of config.toml), the built-in tools with Bash's environment from
 * `[bash] env`, the default model from config, `DSH_MODEL` or `scripted`. With `cluster` (a
 * provider built by `@dsh/subagent-cluster`'s `makeClusterProvider`), the catalog's delegates run
 * through it on the cluster's runners, and children are admitted through the session's state.
 */
export const dshHarnessOptions = <R = never>(
  ctx: CliContext,
  config: DshConfig,
  cluster?: Effect.Effect<SubagentProvider, never, R>
): HarnessOptions<never, ProcessLauncher | R> => {
  const self = selfCommand()
  const maxDepth = normalizeLimits(config.limits).maxDepth
  const { agents: configured } = acpAgentsFromConfig(config.raw)
  const builtinAcp = dshAcpAgent({ command: self.command, args: self.args, maxDepth })
  const bashEnv = Object.fromEntries(config.bashEnv.flatMap((name) => (ctx.env[name] === undefined ? [] : [[name, ctx.env[name]!]])))
  return {
    agents: fileAgents(agentFiles(ctx, config)),
    backends: Effect.all([
      Effect.succeed(SpawnProvider),
      Effect.succeed(ForkBackend),
      // Out-of-process dsh children get the model credentials explicitly (the environment is
      // scrubbed) and the depth left below them.
      makeDshSdkBackend({
        command: self.command,
        args: [...self.args, "sdk"],
        env: forwardedEnv(ctx.env),
        childLimits: (context) => ({ maxDepth: context.tree.limits.maxDepth - (context.parent.depth + 1) })
      }),
      // A config entry named `dsh` replaces the built-in `acp:dsh`.
      makeAcpBackend({ agents: [...(configured.some((a) => a.name === "dsh") ? [] : [builtinAcp]), ...configured], parentEnv: ctx.env }),
      ...(cluster === undefined ? [] : [cluster])
    ]),
    tools: makeBuiltinToolsWith({ env: bashEnv }),
    model: config.model ?? ctx.env.DSH_MODEL ?? "scripted",
    modelConfig: { env: ctx.env, cwd: ctx.cwd },
    ...(cluster === undefined ? {} : { delegatesRunOn: "cluster", sharedAdmission: true })
  }
}

/** The reference harness as the `AgentHost` (see `dshHarnessOptions`). */
export const dshHarnessLayer = (ctx: CliContext, config: DshConfig) => Harness.layer(dshHarnessOptions(ctx, config))
