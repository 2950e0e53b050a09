import { Usage } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import type { Records } from "@dsh/subagent"
import { Effect } from "effect"
import type { OutcomeRecord } from "../ChildEntity.ts"

/** What became of an earlier delivery of the same run. */
export type Attempt =
  | { readonly _tag: "Ended"; readonly outcome: OutcomeRecord }
  | { readonly _tag: "CutOff" }

// A run delivered again had no reply recorded: a `cancelled` attempt was one its runner cut off
// when it shut down or lost its shard (a stop asked for by a parent is answered, never redelivered).
const ENDED = new Set(["completed", "failed", "timeout"])

/** The notice a runner appends to the child's transcript before it runs `runId` (see `hostedNotice`). */
const hostedPrefix = (runId: string) => `run ${runId} hosted by runner `

/** The line that names the runner of a run in the child's transcript; also how a later delivery recognises the run. */
export const hostedNotice = (runId: string, runner: string, resumed: boolean): string =>
  `${hostedPrefix(runId)}${runner} (pid ${process.pid})${resumed ? ", resumed after its earlier runner stopped" : ""}`

/**
 * What became of an earlier delivery of this run: none (no runner noted it in the transcript),
 * ended (the child's meta, written when a run ends, has its run id: its outcome is read back
 * from the last turn), or cut off when its runner died or handed its shards over (noted, but
 * never ended: the meta is written only at the end of a run).
 */
export const previousAttempt = (runId: string, meta: Records.ChildMeta | undefined, store: SessionStore.ChildStore): Effect.Effect<Attempt | undefined> =>
  Effect.gen(function*() {
    const { records } = yield* store.transcript.read.pipe(Effect.orElseSucceed(() => ({ records: [], warnings: [] })))
    if (meta?.runId === runId && ENDED.has(meta.status)) {
      const last = records.findLast((r) => r.type === "turn-end")
      const outcome: OutcomeRecord = last?.type === "turn-end"
        ? { status: last.status, output: last.result, usage: last.usage, ...(last.error === undefined ? {} : { notes: last.error }) }
        : { status: meta.status === "completed" ? "failed" : meta.status as OutcomeRecord["status"], output: "", usage: Usage.emptyUsage, notes: meta.notes ?? "the run ended without a result" }
      return { _tag: "Ended", outcome } as const
    }
    const noted = records.some((r) => r.type === "notice" && r.message.startsWith(hostedPrefix(runId)))
    return noted ? { _tag: "CutOff" } as const : undefined
  })
