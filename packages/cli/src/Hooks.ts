import type { HostError } from "@dsh/agent"
import { type CatalogRequest, decodeClaudeHooks, projectHooks } from "@dsh/harness"
import type { ProcessLauncherShape } from "@dsh/subprocess"
import type { HookRegistration } from "@dsh/tools"
import { commandHook } from "@dsh/tools-builtin"
import { Effect } from "effect"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"

/** A session's command hooks: the user's `config.toml`, then the trusted project's. */
export const cliHooks = (ctx: CliContext, config: DshConfig, launcher: ProcessLauncherShape) => (request: CatalogRequest): Effect.Effect<ReadonlyArray<HookRegistration>, HostError> =>
  Effect.map(
    projectHooks(ctx.home, request.cwd, request.extra.trustProject === true),
    (project) => [...config.hooks, ...project].map((spec) => commandHook(launcher, spec))
  )

/**
 * An agent file's `hooks` frontmatter (Claude Code's shape) as command hooks for that agent;
 * a malformed entry is skipped with a warning naming it.
 */
export const cliAgentHooks = (launcher: ProcessLauncherShape) => (agent: string, hooks: Readonly<Record<string, unknown>>): ReadonlyArray<HookRegistration> => {
  const problems: Array<string> = []
  const specs = decodeClaudeHooks({ hooks }, (key, what) => {
    problems.push(`agent ${agent}: ${key} ${what}`)
    return undefined
  })
  for (const p of problems) process.stderr.write(`dsh: warning: ${p} (the hook is ignored)\n`)
  return specs.map((spec) => commandHook(launcher, spec))
}
