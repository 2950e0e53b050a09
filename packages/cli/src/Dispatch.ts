import { Effect } from "effect"
import { UsageError } from "./CliError.ts"
import { agentsCommand } from "./commands/agents.ts"
import { demoCommand } from "./commands/demo.ts"
import { runCommand } from "./commands/run.ts"
import { sessionsCommand } from "./commands/sessions.ts"
import { subagentsCommand } from "./commands/subagents.ts"
import type { CliContext } from "./Context.ts"
import { hostLayer } from "./Runtime.ts"

export const USAGE = `dsh: subagents for AI agent harnesses

Usage:
  dsh run [-p] "prompt" [--agent NAME | --agent-file PATH] [--model SPEC]
          [--session ID | --continue] [--output-format text|json|stream-json] [--cwd DIR]
  dsh agents list [--json] [--cwd DIR] [--trust-project]
  dsh agents trust|untrust [--cwd DIR]
  dsh sessions list [--json]
  dsh sessions report ID --html FILE
  dsh sessions prune --older-than AGE [--dry-run] [--json]   (AGE like 30d, 12h, 90m)
  dsh subagents list|info|log|send|stop [HANDLE|'#N'|all] ["message"] --session ID [--json] [--limit N] [--tools]
  dsh subagents watch --session ID
  dsh acp [--agent NAME] [--model SPEC] [--cwd DIR]   (serves ACP on stdio)
  dsh sdk [--agent NAME] [--model SPEC] [--cwd DIR]   (serves the dsh SDK protocol on stdio)
  dsh demo
  dsh --version

Model specs: scripted[:<file>], openai:<model> (OPENAI_BASE_URL, OPENAI_API_KEY),
             anthropic:<model> (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY)
State lives in $DSH_HOME (default ~/.dsh).
`

/** Routes `argv` to a command. Every command is an Effect over the CLI's services. */
export const dispatch = (argv: ReadonlyArray<string>, ctx: CliContext) => {
  const [command, ...rest] = argv
  switch (command) {
    case "run":
      return runCommand(rest, ctx).pipe(Effect.asVoid, Effect.provide(hostLayer(ctx)))
    case "sessions":
      return sessionsCommand(rest, ctx).pipe(Effect.provide(hostLayer(ctx)))
    case "agents":
      return agentsCommand(rest, ctx)
    case "subagents":
      return subagentsCommand(rest, ctx).pipe(Effect.provide(hostLayer(ctx)))
    case "acp":
      // Protocol servers load on demand: other commands never pay for their modules.
      return Effect.promise(() => import("./commands/acp.ts")).pipe(Effect.flatMap((m) => m.acpCommand(rest, ctx)))
    case "sdk":
      return Effect.promise(() => import("./commands/sdk.ts")).pipe(Effect.flatMap((m) => m.sdkCommand(rest, ctx)))
    case "demo":
      return demoCommand(rest, ctx).pipe(Effect.provide(hostLayer(ctx)))
    default:
      return Effect.fail(new UsageError({ message: `unknown command "${command}" (try: dsh --help)` }))
  }
}
