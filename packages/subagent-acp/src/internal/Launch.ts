import type { LaunchPlan, OutOfProcessRun } from "@dsh/subagent-outofprocess"
import { type Duration, Effect } from "effect"
import { isAbsolute, resolve } from "node:path"
import type { AcpAgentConfig, AcpLaunchAdditions } from "../AcpAgentConfig.ts"
import { AcpChildError } from "../AcpChildError.ts"

/** How long a finished agent gets to exit on its own after stdin closes, before the ladder. */
const EXIT_GRACE: Duration.Input = "1 second"

/** Parent variables passed through by name (a trailing `*` matches a prefix). */
export const pickEnv = (from: Readonly<Record<string, string | undefined>>, names: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(from)) {
    if (v !== undefined && names.some((n) => (n.endsWith("*") ? k.startsWith(n.slice(0, -1)) : k === n))) out[k] = v
  }
  return out
}

/** The agent's working directory: the parent's (`parent`, the default), or one relative to it. */
const cwdOf = (agent: AcpAgentConfig, parentCwd: string): string =>
  agent.cwd === undefined || agent.cwd === "parent" ? parentCwd : isAbsolute(agent.cwd) ? agent.cwd : resolve(parentCwd, agent.cwd)

/**
 * What to start for an ACP agent: its command and args plus the run's additions (`prepare`),
 * in its working directory, with the variables it passes through, its explicit ones and the
 * run's. Nothing else reaches it but the launcher's scrubbed allow-list.
 */
export const launchPlan = (options: {
  readonly agent: AcpAgentConfig
  readonly run: OutOfProcessRun
  readonly parentEnv: Readonly<Record<string, string | undefined>>
  readonly killGrace: Duration.Input | undefined
}): Effect.Effect<LaunchPlan, AcpChildError> =>
  Effect.gen(function*() {
    const { agent, run } = options
    const prepare: Effect.Effect<AcpLaunchAdditions, string> = agent.prepare?.(run.context) ?? Effect.succeed({})
    const additions = yield* prepare.pipe(Effect.mapError((message) => new AcpChildError({ reason: "Setup", message })))
    return {
      command: agent.command,
      args: [...(agent.args ?? []), ...(additions.args ?? [])],
      cwd: cwdOf(agent, run.context.parent.cwd),
      env: { ...pickEnv(options.parentEnv, agent.passEnv ?? []), ...agent.env, ...additions.env },
      killGrace: options.killGrace,
      exitGrace: EXIT_GRACE
    }
  })
