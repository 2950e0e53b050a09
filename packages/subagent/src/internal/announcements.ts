import type { SessionError, SessionStore } from "@dsh/session"
import { Clock, Effect, Queue } from "effect"
import { isAnnounceSkip } from "../AnnounceStep.ts"
import { decodeTasks, logWarnings, type SubagentResult, type TaskRecord } from "../Records.ts"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

/** How an announcement names its run; also how a restart recognises one already delivered. */
export const runTag = (runId: string) => `(run ${runId})`

/** A child's session key, as openclaw's `agent:<agentId>:subagent:<uuid>`: its session and handle. */
export const childSessionKey = (sessionId: string, handle: string) => `${sessionId}:subagent:${handle}`

/**
 * The message a parent receives when a background child ends: the stable template (Status from
 * the runtime, Result from the announce step when it ran, else the run's own result; Notes),
 * then the stats line and where to read more (session key and id, transcript).
 */
export const announcementText = (r: SubagentResult): string => {
  const said = r.announcement !== undefined && r.announcement.trim() !== "" ? r.announcement.trim() : r.output.trim()
  return [
    `[subagent announcement] A background subagent finished ${runTag(r.runId)}.`,
    `Handle: ${r.handle} (${r.agent})`,
    `Status: ${r.status}`,
    `Result:\n${said === "" ? "(not available)" : said}`,
    ...(r.notes === undefined ? [] : [`Notes: ${r.notes}`]),
    `Runtime: ${seconds(r.durationMs)} · Tokens: ${r.usage.totalTokens} (in ${r.usage.inputTokens} / out ${r.usage.outputTokens})` +
    (r.cost === undefined ? "" : ` · Cost: $${r.cost.toFixed(4)}`),
    ...(r.sessionId === undefined ? [] : [`Session: ${childSessionKey(r.sessionId, r.handle)} (session id ${r.sessionId})`]),
    ...(r.transcript === undefined ? [] : [`Transcript: ${r.transcript}`])
  ].join("\n")
}

/** An announcement as a host routes it (see `SubagentTreeOptions.onAnnouncement`). */
export interface RoutedAnnouncement {
  /** The session the parent belongs to (absent for a tree without a session). */
  readonly sessionId?: string | undefined
  readonly parent: string
  readonly handle: string
  readonly runId: string
  readonly status: TaskRecord["status"]
  /** The message the parent agent reads. */
  readonly text: string
  /** The outcome (absent for a run lost with its process). */
  readonly result?: SubagentResult | undefined
}

export type AnnouncementListener = (parentHandle: string, announcement: RoutedAnnouncement) => Effect.Effect<void>

/** The message for a run whose process went away before it ended. */
const lostText = (r: TaskRecord): string =>
  `[subagent announcement] ${r.handle} ${runTag(r.runId)} ended as ${r.status}: the process running it stopped. It can be continued with send_message.`

export const recordText = (r: TaskRecord): string => (r.result !== undefined ? announcementText(r.result) : lostText(r))

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** What recovery and settling use of the announcements' state. */
interface TaskState {
  readonly records: Map<string, TaskRecord>
  readonly persistOrWarn: (record: TaskRecord) => Effect.Effect<void>
  readonly queueOf: (parent: string) => Effect.Effect<Queue.Queue<TaskRecord>>
  readonly route: (record: TaskRecord) => Effect.Effect<void>
}

/** The host's own route for a parent's announcements (its channel); it never blocks delivery. */
const routeTo = (session: SessionStore.SessionHandle | undefined, onAnnouncement: AnnouncementListener | undefined) => (record: TaskRecord) =>
  onAnnouncement === undefined ? Effect.void : onAnnouncement(record.parent, {
    sessionId: session?.id,
    parent: record.parent,
    handle: record.handle,
    runId: record.runId,
    status: record.status,
    text: recordText(record),
    ...(record.result === undefined ? {} : { result: record.result })
  }).pipe(Effect.catchCause((cause) => Effect.logWarning(`the host's onAnnouncement failed for ${record.handle}`, cause)))

const recoverTasks = (session: SessionStore.SessionHandle, { records, persistOrWarn, queueOf, route }: TaskState): Effect.Effect<void, SessionError.SessionError> =>
  Effect.gen(function*() {
    // Undelivered outcomes from an earlier process are delivered now; runs that were still
    // going when it died are announced as lost.
    const decoded = decodeTasks(yield* session.readTasks)
    yield* logWarnings(decoded.warnings)
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
    for (const task of [...decoded.records].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
      records.set(task.runId, task)
      if (task.delivered) continue
      // Taken and persisted in the parent's transcript just before a crash: already delivered.
      if ((yield* transcriptOf(task.parent)).includes(runTag(task.runId))) {
        yield* persistOrWarn({ ...task, delivered: true })
        continue
      }
      const record: TaskRecord = task.status === "running" ? { ...task, status: "lost", endedAt: yield* isoNow } : task
      if (record !== task) yield* persistOrWarn(record)
      yield* Queue.offer(yield* queueOf(record.parent), record)
      yield* route(record)
    }
  })

/**
 * Persists the outcome, then queues it for the parent (unless `wait` already consumed it).
 * If the record cannot be written, the outcome is still announced, as failed with the reason.
 */
const finishTask = (
  state: TaskState & {
    readonly persist: (record: TaskRecord) => Effect.Effect<void, { readonly message: string }>
    readonly consumed: Set<string>
    readonly runningOf: (parent: string) => Set<string>
    readonly onDelivered: Effect.Effect<void>
  },
  record: TaskRecord
) => {
  const { records, persist, persistOrWarn, queueOf, route, consumed, runningOf, onDelivered } = state
  return Effect.gen(function*() {
    const done = consumed.delete(record.runId) ? { ...record, delivered: true } : record
    // The child's announce step said ANNOUNCE_SKIP: recorded and listed, never sent; a
    // parent waiting for it is still woken (`take` passes over delivered records).
    if (!done.delivered && isAnnounceSkip(record.result?.announcement)) {
      const skipped = { ...done, delivered: true }
      yield* persistOrWarn(skipped)
      runningOf(record.parent).delete(record.runId)
      yield* onDelivered
      yield* Queue.offer(yield* queueOf(record.parent), skipped)
      return
    }
    const written = yield* persist(done).pipe(Effect.result)
    runningOf(record.parent).delete(record.runId)
    if (done.delivered) return yield* onDelivered
    const queued: TaskRecord = written._tag === "Success" || done.result === undefined ? done : {
      ...done,
      status: "failed",
      result: {
        ...done.result,
        status: "failed",
        notes: [done.result.notes, `the outcome could not be recorded: ${written.failure.message}`].filter((n) => n !== undefined).join("; ")
      }
    }
    records.set(queued.runId, queued)
    yield* Queue.offer(yield* queueOf(record.parent), queued)
    yield* route(queued)
  })
}

/**
 * Durable announcements of background outcomes. The outcome is written to
 * `tasks/<runId>.json` before it is queued for the parent; it is marked delivered once the
 * parent took it (or consumed it with `wait`), so every finished child reaches its parent
 * exactly once, also across a crash and restart (undelivered records are queued again when
 * the tree is loaded). `recover` is false in a process that hosts children for another owner:
 * the owner recovers the session's records, not the host.
 */
export const makeAnnouncements = (
  session: SessionStore.SessionHandle | undefined,
  onDelivered: Effect.Effect<void> = Effect.void,
  recover = true,
  onAnnouncement?: AnnouncementListener | undefined
) =>
  Effect.gen(function*() {
    const route = routeTo(session, onAnnouncement)
    const queues = new Map<string, Queue.Queue<TaskRecord>>()
    const records = new Map<string, TaskRecord>()
    // Taken by the parent but not yet known to be in its synced transcript.
    const unacked = new Map<string, Array<string>>()
    // Consumed by `wait` before its record was finished: never queued.
    const consumed = new Set<string>()
    // Background runs still going, by parent: what a parent's wake loop waits for.
    const running = new Map<string, Set<string>>()
    const runningOf = (parent: string) => {
      const existing = running.get(parent)
      if (existing !== undefined) return existing
      const created = new Set<string>()
      running.set(parent, created)
      return created
    }
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
        return session === undefined ? Effect.void : session.writeTask(record.runId, record)
      })
    const persistOrWarn = (record: TaskRecord) =>
      persist(record).pipe(Effect.ignore({ log: "Warn", message: `could not write tasks/${record.runId}.json` }))

    if (session !== undefined && recover) yield* recoverTasks(session, { records, persistOrWarn, queueOf, route })

    const take = (parent: string) =>
      Effect.gen(function*() {
        const queue = yield* queueOf(parent)
        const taken = (yield* Queue.clear(queue)).filter((r) => records.get(r.runId)?.delivered !== true)
        unacked.set(parent, [...(unacked.get(parent) ?? []), ...taken.map((r) => r.runId)])
        return taken
      })

    return {
      started: (record: TaskRecord) =>
        persistOrWarn(record).pipe(Effect.andThen(Effect.sync(() => runningOf(record.parent).add(record.runId)))),
      finished: (record: TaskRecord) => finishTask({ records, persist, persistOrWarn, queueOf, route, consumed, runningOf, onDelivered }, record),
      /**
       * Takes every queued announcement of `parent`. They count as delivered once `ack`
       * confirms the parent's transcript holds them (after its turn-boundary sync).
       */
      take,
      /** `take`, as the messages the parent reads. */
      takeTexts: (parent: string) => Effect.map(take(parent), (taken) => taken.map(recordText)),
      /** Marks what `parent` took as delivered: call after its transcript was synced. */
      ack: (parent: string) =>
        Effect.gen(function*() {
          const runIds = unacked.get(parent) ?? []
          unacked.delete(parent)
          for (const runId of runIds) {
            const r = records.get(runId)
            if (r !== undefined && !r.delivered) yield* persistOrWarn({ ...r, delivered: true })
          }
          if (runIds.length > 0) yield* onDelivered
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
          return runningOf(parent).size + (yield* Queue.size(queue))
        }),
      /**
       * A parent consumed this run's outcome with `wait`: it is delivered and never announced.
       * Called before or after the run's record is finished, it holds either way.
       */
      consume: (runId: string) =>
        Effect.gen(function*() {
          const r = records.get(runId)
          if (r === undefined || r.status === "running") {
            // Its record is not finished yet: it will be written delivered and never queued,
            // and the parent no longer waits for it.
            consumed.add(runId)
            if (r !== undefined) runningOf(r.parent).delete(runId)
            return
          }
          if (r.delivered) return
          yield* persistOrWarn({ ...r, delivered: true })
          yield* onDelivered
          // Already queued: drop it from the parent's queue.
          const queue = yield* queueOf(r.parent)
          const rest = (yield* Queue.clear(queue)).filter((x) => x.runId !== runId)
          yield* Queue.offerAll(queue, rest)
        }),
      record: (runId: string) => records.get(runId)
    }
  })

export type Announcements = Effect.Success<ReturnType<typeof makeAnnouncements>>
