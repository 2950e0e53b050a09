import { AgentHost } from "@dsh/agent"
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
    // A session whose process is gone shows `lost`; one that cannot be read (a corrupt or missing
    // state.json) is `unreadable` with the contract's fields (empty: not known) and its `reason`
    // (`error` too: its name before the reason field was added).
    const sessions = (yield* (yield* AgentHost.AgentHost).listSessions).map((s) =>
      s.error === undefined
        ? { id: s.id, agent: s.agent, createdAt: s.createdAt, updatedAt: s.updatedAt, status: s.status }
        : { id: s.id, agent: s.agent, createdAt: s.createdAt, updatedAt: s.updatedAt, status: s.status, reason: s.error, error: s.error })
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ sessions }))
    if (sessions.length === 0) return yield* RunOutput.writeLine(ctx.stdout, "no sessions")
    for (const s of sessions) yield* RunOutput.writeLine(ctx.stdout, "reason" in s ? `${s.id}  ${s.status.padEnd(9)}  ${s.reason}` : `${s.id}  ${s.status.padEnd(9)}  ${s.agent}  ${s.updatedAt}`)
  })
