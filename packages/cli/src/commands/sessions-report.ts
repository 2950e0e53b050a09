import { formatCount, loadSessionReport, renderReportHtml } from "@dsh/view"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { rename, unlink, writeFile } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { requireSession, writeLine } from "@dsh/harness"

/**
 * Writes `text` to `path` atomically (a temp file beside it, then a rename). Owner-only (0600):
 * the report quotes the session's prompts and tool output; share it with `chmod` on purpose.
 */
const writeAtomic = (path: string, text: string) =>
  Effect.tryPromise({
    try: async () => {
      const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
      try {
        await writeFile(temp, text, { encoding: "utf8", flag: "wx", mode: 0o600 })
        await rename(temp, path)
      } catch (cause) {
        await unlink(temp).catch(() => undefined)
        throw cause
      }
    },
    catch: (cause) => {
      const code = (cause as NodeJS.ErrnoException).code
      // A directory that does not exist or cannot be written is the user's to fix.
      return code === "ENOENT" || code === "EACCES" || code === "EISDIR" || code === "ENOTDIR"
        ? new UsageError({ message: `--html ${path}: cannot write it (${code})` })
        : new RunFailed({ message: `--html ${path}: ${cause instanceof Error ? cause.message : String(cause)}` })
    }
  })

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
    const session = yield* requireSession(positional ?? values.session, { cwd: ctx.cwd, notice: (line) => writeLine(ctx.stderr, line) })
    const report = yield* loadSessionReport(session)
    const file = resolve(ctx.cwd, values.html)
    yield* writeAtomic(file, renderReportHtml(report))
    const children = report.agents.length - 1
    yield* writeLine(ctx.stdout, `${file}: ${children} subagent${children === 1 ? "" : "s"}, ${formatCount(report.totals.usage.totalTokens)} tokens`)
  })
