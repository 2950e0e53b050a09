import { DshFlags } from "@dsh/kit/dsh"
import { SessionMaintenance, Worktrees } from "@dsh/subagent"
import { PruneText } from "@dsh/view"
import { Duration, Effect, Option } from "effect"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput } from "@dsh/harness"

/**
 * `dsh sessions prune --older-than 30d [--dry-run] [--json]`: deletes the sessions not updated for
 * that long and archives the children of the others that `[subagents] archive_after_minutes`
 * (default 60) says are due; a session a live process runs is never touched. The semantics are
 * `pruneSessions` of `@dsh/subagent`.
 */
export const sessionsPruneCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, {
      "older-than": { type: "string" },
      "dry-run": { type: "boolean" },
      json: { type: "boolean" }
    }, "sessions prune")
    if (positionals.length > 0) return yield* new UsageError({ message: `sessions prune takes no argument (got "${positionals[0]}")` })
    if (values["older-than"] === undefined) return yield* new UsageError({ message: "usage: dsh sessions prune --older-than AGE [--dry-run] (AGE like 30d, 12h, 90m)" })
    const olderThan = yield* DshFlags.age(values["older-than"], "--older-than")
    const config = yield* loadConfig(ctx.home)
    const minutes = config.archiving.afterMinutes ?? 60
    const summary = yield* SessionMaintenance.pruneSessions({
      olderThan,
      archiveAfter: minutes === 0 ? undefined : Duration.minutes(minutes),
      dryRun: values["dry-run"] === true,
      worktrees: Option.getOrUndefined(yield* Effect.serviceOption(Worktrees.Worktrees))
    })
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify(summary))
    for (const line of PruneText.pruneSummaryLines(summary)) yield* RunOutput.writeLine(ctx.stdout, line)
  })
