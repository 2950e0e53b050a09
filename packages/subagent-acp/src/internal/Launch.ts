import type { OutOfProcessBackend } from "@dsh/subagent-outofprocess"
import type { Sandbox } from "@dsh/subprocess"
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

/** The agent's command line, wrapped in the sandbox when it asks for one. */
const sandboxed = (
  agent: AcpAgentConfig,
  sandbox: Sandbox.SandboxShape | undefined,
  command: { readonly command: string; readonly args: ReadonlyArray<string>; readonly cwd: string }
): Effect.Effect<{ readonly command: string; readonly args: ReadonlyArray<string> }, AcpChildError> =>
  Effect.gen(function*() {
    if (agent.sandbox !== true) return command
    const setup = (message: string) => new AcpChildError({ reason: "Setup", message })
    if (sandbox === undefined) return yield* setup(`[acp.agents.${agent.name}] sandbox = true, but this harness gave the acp provider no sandbox`)
    const plan = yield* sandbox.plan(command)
    if (plan._tag === "Refused") return yield* setup(`cannot run ${agent.name} in the sandbox: ${plan.reason}`)
    if (plan._tag === "Confined") return { command: plan.command, args: plan.args }
    if (plan.warning !== undefined) yield* Effect.logWarning(plan.warning)
    return command
  })

/**
 * What to start for an ACP agent: its command and args plus the run's additions (`prepare`),
 * in its working directory (inside the sandbox for `sandbox: true`), with the variables it
 * passes through, its explicit ones and the run's. Nothing else reaches it but the launcher's scrubbed allow-list.
 */
export const launchPlan = (options: {
  readonly agent: AcpAgentConfig
  readonly run: OutOfProcessBackend.OutOfProcessRun
  readonly parentEnv: Readonly<Record<string, string | undefined>>
  readonly killGrace: Duration.Input | undefined
  /** For agents with `sandbox: true`. */
  readonly sandbox?: Sandbox.SandboxShape | undefined
}): Effect.Effect<OutOfProcessBackend.LaunchPlan, AcpChildError> =>
  Effect.gen(function*() {
    const { agent, run } = options
    const prepare: Effect.Effect<AcpLaunchAdditions, string> = agent.prepare?.(run.context) ?? Effect.succeed({})
    const additions = yield* prepare.pipe(Effect.mapError((message) => new AcpChildError({ reason: "Setup", message })))
    const cwd = cwdOf(agent, run.context.parent.cwd)
    const command = yield* sandboxed(agent, options.sandbox, { command: agent.command, args: [...(agent.args ?? []), ...(additions.args ?? [])], cwd })
    return {
      ...command,
      cwd,
      env: { ...pickEnv(options.parentEnv, agent.passEnv ?? []), ...agent.env, ...additions.env },
      killGrace: options.killGrace,
      exitGrace: EXIT_GRACE
    }
  })
