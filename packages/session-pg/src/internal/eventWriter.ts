/**
 * The store's writer of `dsh_events`: every transcript of the store hands its appended records
 * here, and one INSERT at a time carries the records of all of them (group commit across
 * transcripts). On a runner hosting dozens of children, each appending as it runs, an INSERT per
 * transcript was 16 of a child's 38 statements; now the appends that come while one INSERT is in
 * flight go in with the next, whichever transcript they belong to. Each append still returns only
 * once its own row is committed.
 *
 * A shared INSERT that fails (another writer took a transcript's numbers, a session removed
 * meanwhile, the connection lost) is retried one transcript at a time, so one transcript's trouble
 * is never another's; a transcript whose own INSERT failed writes alone until one succeeds.
 */
import type { Events } from "@dsh/core"
import { type SessionError, StoreKit } from "@dsh/session"
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { type Db, run } from "./Db.ts"

/** Rows per INSERT at most (four parameters each, well under PostgreSQL's 65,535). */
const MAX_ROWS = 1000

/** One multi-row INSERT whose commit does not wait for the WAL flush. */
const insertSql = (rows: number): string => {
  const values = Array.from({ length: rows }, (_, i) => `($${1 + 4 * i}, $${2 + 4 * i}, $${3 + 4 * i}::bigint, $${4 + 4 * i})`).join(", ")
  return `INSERT INTO dsh_events (session_id, agent, seq, record)
SELECT v.session_id, v.agent, v.seq, v.record::json
FROM (VALUES ${values}) AS v (session_id, agent, seq, record)
CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`
}

/** One transcript as the writer sees it. Its fields change only in the writer's rounds (or its own numbering lock, for `pending.push`). */
export interface EventQueue {
  readonly sessionId: string
  readonly agent: string
  readonly location: string
  /** Records appended but not yet in the table (a failed INSERT keeps them here). */
  pending: Array<Events.WireRecord>
  /** Rows committed since the last synchronous commit. */
  unsynced: boolean
  /** Its last INSERT failed: it writes alone until one succeeds. */
  alone: boolean
  /**
   * After a clash on `seq`: drops the leading pending records that are stored already, to the
   * letter (an INSERT that committed although its reply was lost), and numbers the rest after
   * the highest stored `seq` (another writer took ours). Keeps the record objects: callers wait
   * for those very objects to leave `pending`.
   */
  readonly renumber: Effect.Effect<void, SessionError.SessionError>
}

export interface EventWriter {
  /** Marks `queue` as having pending records (after a `pending.push`). */
  readonly enqueue: (queue: EventQueue) => void
  /** Returns once `record` of `queue` is in the table (written by this call or one it joined). */
  readonly written: (queue: EventQueue, record: Events.WireRecord) => Effect.Effect<void, SessionError.SessionError>
  /** Writes everything `queue` has pending (before a read or a sync of it), then runs `then`. */
  readonly flushed: <A>(queue: EventQueue, then: Effect.Effect<A, SessionError.SessionError>) => Effect.Effect<A, SessionError.SessionError>
}

interface Slice {
  readonly queue: EventQueue
  readonly count: number
}

export const makeEventWriter = (db: Db): Effect.Effect<EventWriter> =>
  Effect.gen(function*() {
    // One INSERT at a time; an append waiting for it finds its row written once it ends.
    const rounds = StoreKit.makeRounds()
    const waiting = new Set<EventQueue>()

    // The rows are read when it runs (after a renumbering, the new numbers).
    const insert = (slices: ReadonlyArray<Slice>): Effect.Effect<void, SqlError> =>
      Effect.suspend(() => {
        const params: Array<unknown> = []
        let rows = 0
        for (const { count, queue } of slices) {
          for (const r of queue.pending.slice(0, count)) params.push(queue.sessionId, queue.agent, String(r.seq), JSON.stringify(r))
          rows += count
        }
        return Effect.asVoid(db.sql.unsafe(insertSql(rows), params))
      })

    const committed = (slices: ReadonlyArray<Slice>) =>
      Effect.sync(() => {
        for (const { count, queue } of slices) {
          queue.pending = queue.pending.slice(count)
          queue.unsynced = true
          queue.alone = false
          if (queue.pending.length === 0) waiting.delete(queue)
        }
      })

    /**
     * Everything `queue` has pending, in INSERTs of its own. On a clash the transcript's numbers
     * are looked at once (`renumber`: rows already ours are taken as written, the rest numbered
     * after the stored end) and the pending rows are sliced again, since that can remove some.
     */
    const writeAlone = (queue: EventQueue, renumbered = false): Effect.Effect<void, SessionError.SessionError> =>
      Effect.suspend(() => {
        if (queue.pending.length === 0) return Effect.void
        const slice = [{ queue, count: Math.min(queue.pending.length, MAX_ROWS) }]
        return run(
          db,
          `appending to ${queue.location}`,
          insert(slice).pipe(
            Effect.as(true),
            Effect.catchIf((e) => !renumbered && e.reason._tag === "UniqueViolation", () => Effect.succeed(false))
          )
        ).pipe(
          Effect.flatMap((inserted) =>
            inserted
              ? committed(slice).pipe(Effect.andThen(Effect.suspend(() => writeAlone(queue))))
              : queue.renumber.pipe(Effect.andThen(Effect.suspend(() => writeAlone(queue, true))))
          ),
          Effect.tapError(() => Effect.sync(() => void (queue.alone = true)))
        )
      })

    /**
     * One INSERT of every waiting transcript's records that writes with others (what comes
     * meanwhile goes with the next caller's); a failed one is retried transcript by transcript. Fails only with
     * `own`'s trouble: the other transcripts' callers see their records still pending and
     * write them themselves.
     */
    const writeShared = (own: EventQueue): Effect.Effect<void, SessionError.SessionError> =>
      Effect.suspend(() => {
        const slices: Array<Slice> = []
        let rows = 0
        for (const queue of waiting) {
          if (rows >= MAX_ROWS) break
          if (queue.alone || queue.pending.length === 0) continue
          const count = Math.min(queue.pending.length, MAX_ROWS - rows)
          slices.push({ queue, count })
          rows += count
        }
        if (slices.length === 0) return Effect.void
        return insert(slices).pipe(
          Effect.andThen(committed(slices)),
          Effect.catch(() =>
            Effect.forEach(slices, ({ queue }) =>
              writeAlone(queue).pipe(Effect.catch((error) => queue === own ? Effect.fail(error) : Effect.void)), { discard: true })
          )
        )
      })

    // Uninterruptible once started: records taken into an INSERT must be seen committed or kept.
    const writeFor = (queue: EventQueue) =>
      (queue.alone ? writeAlone(queue) : writeShared(queue).pipe(Effect.andThen(writeAlone(queue)))).pipe(Effect.uninterruptible)

    return {
      enqueue: (queue) => void waiting.add(queue),
      written: (queue, record) => rounds.unlessDone(() => !queue.pending.includes(record), Effect.suspend(() => writeFor(queue))),
      // Once nothing of `queue` is pending, its rows are committed (a round takes rows out of `pending` only then).
      flushed: (queue, then) => rounds.unlessDone(() => queue.pending.length === 0, Effect.suspend(() => writeFor(queue))).pipe(Effect.andThen(then))
    }
  })
