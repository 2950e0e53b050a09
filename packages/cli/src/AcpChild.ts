import { acpAgentsFromConfig, acpAgentTypes, dshAcpAgent, makeAcpProviderWith } from "@dsh/subagent-acp"
import { LocalProcessLauncher, ProcessLauncher } from "@dsh/subprocess"
import { Effect, Option } from "effect"
import { selfCommand } from "./SdkChild.ts"

/**
 * The `acp` backend as the reference harness wires it: `acp:dsh` (this CLI's own `dsh acp`,
 * always there) plus every `[acp.agents.<name>]` of config.toml as `acp:<name>`. A config
 * entry named `dsh` replaces the built-in one. Invalid entries are skipped (see `warnings`).
 */
export const acpChildBackend = (options: {
  readonly env: NodeJS.ProcessEnv
  /** The parsed config.toml (`DshConfig.raw`). */
  readonly raw: unknown
  readonly maxDepth: () => number
}) =>
  Effect.gen(function*() {
    const launcher = Option.getOrElse(yield* Effect.serviceOption(ProcessLauncher), () => LocalProcessLauncher.make())
    const self = selfCommand()
    const { agents: configured, warnings } = acpAgentsFromConfig(options.raw)
    const builtin = dshAcpAgent({ command: self.command, args: self.args, maxDepth: options.maxDepth })
    const agents = [...(configured.some((a) => a.name === "dsh") ? [] : [builtin]), ...configured]
    const provider = makeAcpProviderWith(launcher, { agents, parentEnv: options.env })
    return { provider, types: acpAgentTypes(agents), warnings }
  })
