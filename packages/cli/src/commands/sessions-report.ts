import { ReportFile, SessionReport, TreeText } from "@dsh/view"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput, SessionChoice } from "@dsh/harness"

/**
 * `dsh sessions report ID --html FILE`: one self-contained HTML page of the session's tree
 * (agents, timeline, tokens and cost, every transcript), from `@dsh/view`. Reads only: a session
 * that is running is reported as it is now.
 */
export const sessionsReportCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, { html: { type: "string" }, session: { type: "string" } }, "sessions report")
    const [positional, ...extra] = positionals
    if (extra.length > 0 || values.html === undefined || values.html === "" || (positional !== undefined && values.session !== undefined)) {
      return yield* new UsageError({ message: "usage: dsh sessions report ID --html FILE" })
    }
    // Without an id, the working directory's latest session, as `dsh subagents …` picks it.
    const session = yield* SessionChoice.requireSession(positional ?? values.session, { cwd: ctx.cwd, notice: (line) => RunOutput.writeLine(ctx.stderr, line) })
    const report = yield* SessionReport.loadSessionReport(session)
    const file = resolve(ctx.cwd, values.html)
    yield* ReportFile.writeReportHtml(file, report).pipe(
      Effect.mapError((e) => (e.badPath ? new UsageError({ message: `--html ${e.message}` }) : new RunFailed({ message: `--html ${e.message}` })))
    )
    const children = report.agents.length - 1
    yield* RunOutput.writeLine(ctx.stdout, `${file}: ${children} subagent${children === 1 ? "" : "s"}, ${TreeText.formatCount(report.totals.usage.totalTokens)} tokens`)
  })
