import type { SessionHandle } from "@dsh/session"
import { Effect, Queue } from "effect"
import type { SubagentResult, TaskRecord } from "../Vocabulary.ts"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

/** How an announcement names its run; also how a restart recognises one already delivered. */
export const runTag = (runId: string) => `(run ${runId})`

/** The message a parent receives when a background child ends. */
export const announcementText = (r: SubagentResult): string =>
  [
    `[subagent announcement] A background subagent finished ${runTag(r.runId)}.`,
    `Handle: ${r.handle} (${r.agent})`,
    `Status: ${r.status}`,
    `Result:\n${r.output.trim() === "" ? "(no text)" : r.output}`,
    ...(r.notes === undefined ? [] : [`Notes: ${r.notes}`]),
    `Runtime: ${seconds(r.durationMs)} · Tokens: ${r.usage.totalTokens} (in ${r.usage.inputTokens} / out ${r.usage.outputTokens})` +
    (r.cost === undefined ? "" : ` · Cost: $${r.cost.toFixed(4)}`),
    ...(r.transcript === undefined ? [] : [`Transcript: ${r.transcript}`])
  ].join("\n")

/**
 * Durable announcements of background outcomes. The outcome is written to
 * `tasks/<runId>.json` before it is queued for the parent; it is marked delivered once the
 * parent took it, so every finished child is announced exactly once, also across a crash
 * and restart (undelivered records are queued again when the tree is loaded).
 */
export const makeAnnouncements = (session: SessionHandle | undefined) =>
  Effect.gen(function*() {
    const queues = new Map<string, Queue.Queue<TaskRecord>>()
    const records = new Map<string, TaskRecord>()
    // Taken by the parent but not yet known to be in its synced transcript.
    const unacked = new Map<string, Array<string>>()
    const running = new Map<string, number>()
    const queueOf = (parent: string) =>
      Effect.gen(function*() {
        const existing = queues.get(parent)
        if (existing !== undefined) return existing
        const created = yield* Queue.unbounded<TaskRecord>()
        queues.set(parent, created)
        return created
      })
    const persist = (record: TaskRecord) =>
      Effect.suspend(() => {
        records.set(record.runId, record)
        return session === undefined ? Effect.void : session.writeTask(record.runId, record).pipe(Effect.ignore)
      })

    // Undelivered outcomes from an earlier process are delivered now; runs that were still
    // going when it died are announced as lost.
    if (session !== undefined) {
      const stored = (yield* session.readTasks.pipe(Effect.orElseSucceed(() => []))) as ReadonlyArray<TaskRecord>
      const transcripts = new Map<string, string>()
      const transcriptOf = (parent: string) =>
        Effect.gen(function*() {
          const cached = transcripts.get(parent)
          if (cached !== undefined) return cached
          const transcript = parent === "main" ? session.transcript : (yield* session.child(parent)).transcript
          const { records: lines } = yield* transcript.read
          const text = lines.flatMap((r) => (r.type === "message" ? [r.message.content] : [])).join("\n")
          transcripts.set(parent, text)
          return text
        }).pipe(Effect.orElseSucceed(() => ""))
      for (const task of [...stored].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
        if (task.delivered) continue
        // Taken and persisted in the parent's transcript just before a crash: already delivered.
        if ((yield* transcriptOf(task.parent)).includes(runTag(task.runId))) {
          yield* persist({ ...task, delivered: true })
          continue
        }
        const record: TaskRecord = task.status === "running"
          ? { ...task, status: "lost", endedAt: new Date().toISOString() }
          : task
        if (record !== task) yield* persist(record)
        records.set(record.runId, record)
        yield* Queue.offer(yield* queueOf(record.parent), record)
      }
    }

    return {
      started: (record: TaskRecord) =>
        persist(record).pipe(Effect.andThen(Effect.sync(() => running.set(record.parent, (running.get(record.parent) ?? 0) + 1)))),
      /** Persists the outcome, then queues it for the parent. */
      finished: (record: TaskRecord) =>
        Effect.gen(function*() {
          yield* persist(record)
          running.set(record.parent, Math.max(0, (running.get(record.parent) ?? 1) - 1))
          yield* Queue.offer(yield* queueOf(record.parent), record)
        }),
      /**
       * Takes every queued announcement of `parent`. They count as delivered once `ack`
       * confirms the parent's transcript holds them (after its turn-boundary sync).
       */
      take: (parent: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(parent)
          const taken = (yield* Queue.clear(queue)).filter((r) => records.get(r.runId)?.delivered !== true)
          unacked.set(parent, [...(unacked.get(parent) ?? []), ...taken.map((r) => r.runId)])
          return taken
        }),
      /** Marks what `parent` took as delivered: call after its transcript was synced. */
      ack: (parent: string) =>
        Effect.gen(function*() {
          const runIds = unacked.get(parent) ?? []
          unacked.delete(parent)
          for (const runId of runIds) {
            const r = records.get(runId)
            if (r !== undefined && !r.delivered) yield* persist({ ...r, delivered: true })
          }
        }),
      /** Waits for the next announcement of `parent` (without taking it). */
      awaitNext: (parent: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(parent)
          const next = yield* Queue.take(queue)
          // Put it back at the front: `take` delivers it with any others that arrived.
          const rest = yield* Queue.clear(queue)
          yield* Queue.offerAll(queue, [next, ...rest])
        }),
      /** Background runs of `parent` still running, and announcements not yet taken. */
      pending: (parent: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(parent)
          return (running.get(parent) ?? 0) + (yield* Queue.size(queue))
        }),
      /** Marks a run's announcement delivered without queueing it (a parent that waited on it). */
      delivered: (runId: string) =>
        Effect.suspend(() => {
          const r = records.get(runId)
          return r === undefined || r.delivered ? Effect.void : persist({ ...r, delivered: true })
        }),
      record: (runId: string) => records.get(runId)
    }
  })

export type Announcements = Effect.Success<ReturnType<typeof makeAnnouncements>>
