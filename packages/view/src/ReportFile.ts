import { Data, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { rename, unlink, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { renderReportHtml } from "./ReportHtml.ts"
import type { SessionReport } from "./SessionReport.ts"

/** The system's codes for a path that is the caller's to fix (a directory missing or not writable). */
const BAD_PATH = new Set(["ENOENT", "EACCES", "EISDIR", "ENOTDIR"])

/** The report could not be written; `badPath`: the path is the caller's to fix, not a fault of the run. */
export class ReportWriteError extends Data.TaggedError("ReportWriteError")<{ readonly path: string; readonly badPath: boolean; readonly message: string }> {}

/**
 * Writes the report's HTML page to `path` atomically (a temp file beside it, then a rename), so
 * an earlier report there is never left half-overwritten. Owner-only (0600): the report quotes
 * the session's prompts and tool output; share it with `chmod` on purpose.
 */
export const writeReportHtml = (path: string, report: SessionReport): Effect.Effect<void, ReportWriteError> =>
  Effect.tryPromise({
    try: async () => {
      const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
      try {
        await writeFile(temp, renderReportHtml(report), { encoding: "utf8", flag: "wx", mode: 0o600 })
        await rename(temp, path)
      } catch (cause) {
        await unlink(temp).catch(() => undefined)
        throw cause
      }
    },
    catch: (cause) => {
      const code = (cause as NodeJS.ErrnoException).code
      const badPath = code !== undefined && BAD_PATH.has(code)
      return new ReportWriteError({ path, badPath, message: `${path}: ${badPath ? `cannot write it (${code})` : cause instanceof Error ? cause.message : String(cause)}` })
    }
  })
