import type { DshFlags } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"
import type { PermissionFlags } from "./Permissions.ts"

/** A command that runs agents: its module and the host's load together, on demand. */
const hosted = <A, E, R>(ctx: CliContext, command: () => Promise<Effect.Effect<A, E, R>>) =>
  Effect.promise(() => Promise.all([command(), import("./Host.ts")])).pipe(
    Effect.flatMap(([effect, { hostLayer }]) => effect.pipe(Effect.provide(hostLayer(ctx))))
  )

/** A command that reads or writes sessions: `--store` taken from its arguments, its store provided. */
const stored = <A, E, R>(args: ReadonlyArray<string>, ctx: CliContext, command: (rest: ReadonlyArray<string>) => Effect.Effect<A, E, R>) =>
  Effect.promise(() => import("./Store.ts")).pipe(Effect.flatMap((m) => m.withSessionStore(args, ctx, command)))

/** A command that runs agents over sessions: `--store` and `--cluster` taken, store and host provided. */
const hostedStored = <I, A, E, R>(
  args: ReadonlyArray<string>,
  ctx: CliContext,
  parse: (rest: ReadonlyArray<string>) => Effect.Effect<I, UsageError | DshFlags.DshFlagError>,
  flagsOf: (input: I) => PermissionFlags | undefined,
  command: (input: I) => Effect.Effect<A, E, R>
) => Effect.promise(() => import("./Store.ts")).pipe(Effect.flatMap((m) => m.withHostedStore(args, ctx, parse, flagsOf, command)))

/**
 * Routes `argv` to a command. Every command is an Effect over the CLI's services; its modules
 * load on demand, so no command pays at start-up for another's (nor `dsh agents` for the host).
 */
export const dispatch = (argv: ReadonlyArray<string>, ctx: CliContext) => {
  const [command, ...rest] = argv
  switch (command) {
    case "run":
      return Effect.promise(() => import("./commands/run.ts")).pipe(
        Effect.flatMap((m) => hostedStored(rest, ctx, (args) => m.parseRunArgs(args, ctx), (input) => input.permissions, (input) => m.executeRun(input, ctx))),
        Effect.asVoid
      )
    case "sessions":
      return stored(rest, ctx, (args) => hosted(ctx, async () => (await import("./commands/sessions.ts")).sessionsCommand(args, ctx)))
    case "agents":
      return Effect.promise(() => import("./commands/agents.ts")).pipe(Effect.flatMap((m) => m.agentsCommand(rest, ctx)))
    case "subagents":
      return Effect.promise(() => import("./commands/subagents.ts")).pipe(
        Effect.flatMap((m) => hostedStored(rest, ctx, Effect.succeed, () => undefined, (args) => m.subagentsCommand(args, ctx)))
      )
    case "runner":
      return Effect.promise(() => import("./commands/runner.ts")).pipe(Effect.flatMap((m) => m.runnerCommand(rest, ctx)))
    case "acp":
      // The protocol servers provide the host themselves, for the directory of `--cwd`.
      return stored(rest, ctx, (args) => Effect.promise(() => import("./commands/acp.ts")).pipe(Effect.flatMap((m) => m.acpCommand(args, ctx))))
    case "sdk":
      return stored(rest, ctx, (args) => Effect.promise(() => import("./commands/sdk.ts")).pipe(Effect.flatMap((m) => m.sdkCommand(args, ctx))))
    case "mcp":
      return Effect.promise(() => import("./commands/mcp.ts")).pipe(
        Effect.flatMap((m) => hostedStored(rest, ctx, (args) => m.parseMcpArgs(args, ctx), (input) => input.permissions, (input) => m.executeMcp(input, ctx)))
      )
    case "a2a":
      return Effect.promise(() => import("./commands/a2a.ts")).pipe(
        Effect.flatMap((m) => hostedStored(rest, ctx, (args) => m.parseA2aArgs(args, ctx), (input) => input.permissions, (input) => m.executeA2a(input, ctx)))
      )
    case "doctor":
    case "sandbox":
      return Effect.promise(() => import("./commands/doctor.ts")).pipe(Effect.flatMap((m) => m.doctorCommand(command === "sandbox" ? rest.filter((a) => a !== "check") : rest, ctx)))
    case "resident":
      return Effect.promise(() => import("./commands/resident.ts")).pipe(Effect.flatMap((m) => m.residentCommand(rest, ctx)))
    case "demo":
      return stored([], ctx, () => hosted(ctx, async () => (await import("./commands/demo.ts")).demoCommand(rest, ctx)))
    default:
      return Effect.fail(new UsageError({ message: `unknown command "${command}" (try: dsh --help)` }))
  }
}
