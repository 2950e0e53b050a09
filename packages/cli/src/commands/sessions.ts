import { DshSessions } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput } from "@dsh/harness"
import { sessionsPruneCommand } from "./sessions-prune.ts"
import { sessionsReportCommand } from "./sessions-report.ts"

/** `dsh sessions list [--json]`: newest first; `report` and `prune` have files of their own. */
export const sessionsCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    // The first word that is not a flag picks the subcommand; its own flags are parsed there.
    const at = args.findIndex((a) => !a.startsWith("-"))
    const rest = at < 0 ? args : [...args.slice(0, at), ...args.slice(at + 1)]
    if (args[at] === "report") return yield* sessionsReportCommand(rest, ctx)
    if (args[at] === "prune") return yield* sessionsPruneCommand(rest, ctx)
    const { values, positionals } = yield* parseFlags(args, { json: { type: "boolean" } }, "sessions")
    const sub = positionals[0] ?? "list"
    if (sub !== "list" || positionals.length > 1) {
      return yield* new UsageError({ message: `sessions: unknown subcommand "${positionals.join(" ")}" (list, report, prune)` })
    }
    const sessions = yield* DshSessions.list
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ sessions }))
    for (const line of DshSessions.lines(sessions)) yield* RunOutput.writeLine(ctx.stdout, line)
  })
