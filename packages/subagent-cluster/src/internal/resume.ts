import { emptyUsage } from "@dsh/core"
import type { ChildStore } from "@dsh/session"
import type { ChildMeta } from "@dsh/subagent"
import { Effect } from "effect"
import type { OutcomeRecord } from "../ChildEntity.ts"

/** What became of an earlier delivery of the same run. */
export type Attempt =
  | { readonly _tag: "Ended"; readonly outcome: OutcomeRecord }
  | { readonly _tag: "CutOff" }

// A run delivered again had no reply recorded: a `cancelled` attempt was one its runner cut off
// when it shut down or lost its shard (a stop asked for by a parent is answered, never redelivered).
const ENDED = new Set(["completed", "failed", "timeout"])

/**
 * An earlier attempt of this run (its run id is in the child's meta): it ended — its outcome
 * is read back from the child's transcript (the last turn's result) — or it was cut off when
 * its runner died or handed its shards over.
 */
export const previousAttempt = (meta: ChildMeta, store: ChildStore): Effect.Effect<Attempt> =>
  Effect.gen(function*() {
    if (!ENDED.has(meta.status)) return { _tag: "CutOff" } as const
    const { records } = yield* store.transcript.read.pipe(Effect.orElseSucceed(() => ({ records: [], warnings: [] })))
    const last = records.findLast((r) => r.type === "turn-end")
    const outcome: OutcomeRecord = last?.type === "turn-end"
      ? { status: last.status, output: last.result, usage: last.usage, ...(last.error === undefined ? {} : { notes: last.error }) }
      : { status: meta.status === "completed" ? "failed" : meta.status as OutcomeRecord["status"], output: "", usage: emptyUsage, notes: meta.notes ?? "the run ended without a result" }
    return { _tag: "Ended", outcome }
  })
