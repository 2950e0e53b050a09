import { Effect } from "effect"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"

/** A command that runs agents: its module and the host's load together, on demand. */
const hosted = <A, E, R>(ctx: CliContext, command: () => Promise<Effect.Effect<A, E, R>>) =>
  Effect.promise(() => Promise.all([command(), import("./Host.ts")])).pipe(
    Effect.flatMap(([effect, { hostLayer }]) => effect.pipe(Effect.provide(hostLayer(ctx))))
  )

/**
 * Routes `argv` to a command. Every command is an Effect over the CLI's services; its modules
 * load on demand, so no command pays at start-up for another's (nor `dsh agents` for the host).
 */
export const dispatch = (argv: ReadonlyArray<string>, ctx: CliContext) => {
  const [command, ...rest] = argv
  switch (command) {
    case "run":
      return hosted(ctx, async () => (await import("./commands/run.ts")).runCommand(rest, ctx).pipe(Effect.asVoid))
    case "sessions":
      return hosted(ctx, async () => (await import("./commands/sessions.ts")).sessionsCommand(rest, ctx))
    case "agents":
      return Effect.promise(() => import("./commands/agents.ts")).pipe(Effect.flatMap((m) => m.agentsCommand(rest, ctx)))
    case "subagents":
      return hosted(ctx, async () => (await import("./commands/subagents.ts")).subagentsCommand(rest, ctx))
    case "acp":
      // The protocol servers provide the host themselves, for the directory of `--cwd`.
      return Effect.promise(() => import("./commands/acp.ts")).pipe(Effect.flatMap((m) => m.acpCommand(rest, ctx)))
    case "sdk":
      return Effect.promise(() => import("./commands/sdk.ts")).pipe(Effect.flatMap((m) => m.sdkCommand(rest, ctx)))
    case "demo":
      return hosted(ctx, async () => (await import("./commands/demo.ts")).demoCommand(rest, ctx))
    default:
      return Effect.fail(new UsageError({ message: `unknown command "${command}" (try: dsh --help)` }))
  }
}
