/**
 * A `Transcript` as rows of `dsh_events` (`agent` '' for the main agent, else the child's name),
 * written through: each `append` returns once its row is committed, so every reader sees it at
 * once; appends made while an INSERT is in flight go in together with the next one, whichever of
 * the store's transcripts they belong to (`eventWriter.ts`), so concurrent writers share round
 * trips. Like the file store's write without fsync, that commit does not wait for the WAL
 * flush (`synchronous_commit` off for that statement alone); `sync` makes everything appended so
 * far durable with one synchronous commit. A failed INSERT keeps its events, and they go in with
 * the next append. `seq` continues from the highest stored one, read on first append (or known
 * from a read of the whole transcript before it); an
 * archived transcript (`dsh_archive`) is read from its archive and restored by that first append.
 */
import { Events } from "@dsh/core"
import { type SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Effect, Semaphore } from "effect"
import { archivedLines, parseLines, restoreChild } from "./archive.ts"
import { type Db, run } from "./Db.ts"
import type { EventQueue, EventWriter } from "./eventWriter.ts"

/** A transcript of this store; `forget` drops its cached numbering (after its rows were archived). */
export interface PgTranscript extends SessionStore.Transcript {
  readonly forget: Effect.Effect<void>
}

/** The statements of one agent's transcript (`""` is the main agent's). */
const statements = (db: Db, sessionId: string, agent: string) => {
  /** The highest stored `seq` (0 for none). */
  const storedSeq = db.sql<{ readonly last: string | number | null }>`SELECT max(seq) AS last FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${agent}`
    .pipe(Effect.map((rows) => Number(rows[0]?.last ?? 0)))

  /** The highest stored `seq` and whether the child's transcript is archived, in one round trip. */
  const startSql = db.sql<{ readonly last: string | number | null; readonly archived: boolean }>`SELECT
    (SELECT max(seq) FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${agent}) AS last,
    ${agent !== ""} AND EXISTS (SELECT 1 FROM dsh_archive WHERE session_id = ${sessionId} AND name = ${agent}) AS archived`

  /** The stored records' text (`json` keeps it as written) from `first` to `last`, by `seq`. */
  const storedText = (first: number, last: number) =>
    db.sql<{ readonly n: string; readonly line: string }>`SELECT seq::text AS n, record::text AS line FROM dsh_events
      WHERE session_id = ${sessionId} AND agent = ${agent} AND seq BETWEEN ${first} AND ${last}`
      .pipe(Effect.map((rows) => new Map(rows.map((r) => [Number(r.n), r.line]))))

  return { storedSeq, startSql, storedText }
}

/**
 * Drops the leading pending records stored already to the letter (committed by an INSERT whose
 * reply was lost) and numbers the rest after `stored`, in place (an append waits until its own
 * record object has left `pending`). Returns the last number handed out.
 */
const renumbered = (queue: EventQueue, stored: number, texts: ReadonlyMap<number, string>): number => {
  let ours = 0
  while (ours < queue.pending.length && texts.get(queue.pending[ours]!.seq) === JSON.stringify(queue.pending[ours])) ours++
  if (ours > 0) {
    queue.pending = queue.pending.slice(ours)
    queue.unsynced = true
  }
  let next = stored
  for (const r of queue.pending) (r as { seq: number }).seq = ++next
  return next
}

export const makePgTranscript = (db: Db, events: EventWriter, sessionId: string, agent: string, location: string): Effect.Effect<PgTranscript> =>
  Effect.gen(function*() {
    /** Numbering: the first append's read of the stored `seq`, and each append's number. */
    const lock = yield* Semaphore.make(1)
    /** The last `seq` handed out; read from the table on first append. */
    let seq: number | undefined

    const { startSql, storedSeq, storedText } = statements(db, sessionId, agent)

    const queue: EventQueue = {
      sessionId,
      agent,
      location,
      pending: [],
      unsynced: false,
      alone: false,
      // Another writer took our numbers (two processes appending to one transcript, which the
      // lease is there to prevent), or our own INSERT committed and its reply was lost.
      renumber: lock.withPermit(Effect.suspend(() =>
        run(db, `reading ${location}`, Effect.all([storedSeq, storedText(queue.pending[0]?.seq ?? 0, queue.pending.at(-1)?.seq ?? 0)])).pipe(
          Effect.map(([stored, texts]) => void (seq = Math.max(seq ?? 0, renumbered(queue, stored, texts))))
        )
      ))
    }

    const append = (event: Events.AgentEvent): Effect.Effect<void, SessionError.SessionError> =>
      Events.isEphemeral(event) ? Effect.void : lock.withPermit(Effect.gen(function*() {
        if (seq === undefined) {
          const [first] = yield* run(db, `reading ${location}`, startSql)
          // Continuing an archived child brings its transcript back first.
          if (first?.archived === true) {
            yield* restoreChild(db, sessionId, agent)
            seq = yield* run(db, `reading ${location}`, storedSeq)
          } else seq = Number(first?.last ?? 0)
        }
        seq += 1
        const record: Events.WireRecord = { seq, ts: yield* StoreKit.nowIso, ...event }
        queue.pending.push(record)
        events.enqueue(queue)
        return record
      })).pipe(
        // Written through: returns once its row is committed, by this INSERT or one it joined.
        Effect.flatMap((record) => events.written(queue, record))
      )

    /**
     * A synchronous commit: the WAL is flushed up to it, so every earlier commit is durable too.
     * It runs outside the writer's round (other transcripts keep writing meanwhile); rows
     * committed after the flag is cleared set it again, and their sync is the next one.
     */
    const sync = events.flushed(queue, Effect.sync(() => {
      const due = queue.unsynced
      queue.unsynced = false
      return due
    })).pipe(Effect.flatMap((due) =>
      due
        ? run(db, `syncing ${location}`, db.sql`SELECT pg_current_xact_id()::text`).pipe(
          Effect.tapError(() => Effect.sync(() => void (queue.unsynced = true))),
          Effect.asVoid
        )
        : Effect.void
    ))

    /** The records after `cursor` (a `seq`), archived ones first; flushed before reading. */
    const readAfter = (cursor: number): Effect.Effect<SessionStore.ReadResult, SessionError.SessionError> =>
      events.flushed(queue, Effect.void).pipe(Effect.andThen(run(
        db,
        `reading ${location}`,
        // The rows and a child's archive in one statement (one round trip, one snapshot).
        agent === ""
          ? db.sql<{ readonly record: unknown; readonly data: Uint8Array | null }>`SELECT record, NULL::bytea AS data FROM dsh_events
              WHERE session_id = ${sessionId} AND agent = ${agent} AND seq > ${cursor} ORDER BY seq`
          : db.sql<{ readonly record: unknown; readonly data: Uint8Array | null }>`SELECT * FROM (
              SELECT 0 AS part, seq, record, NULL::bytea AS data FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${agent} AND seq > ${cursor}
              UNION ALL SELECT 1 AS part, 0 AS seq, NULL::json AS record, data FROM dsh_archive WHERE session_id = ${sessionId} AND name = ${agent}) AS t
            ORDER BY part DESC, seq`
      ).pipe(Effect.map((found) => {
        const archive = found[0]?.data ?? undefined
        return [archive === null ? undefined : archive, archive === undefined || archive === null ? found : found.slice(1)] as const
      })))).pipe(Effect.flatMap(([archived, rows]) =>
        Effect.gen(function*() {
          const fromArchive = archived === undefined ? { records: [], warnings: [] } : parseLines(yield* archivedLines(archived, location), location)
          const records: Array<Events.WireRecord> = fromArchive.records.filter((r) => r.seq > cursor)
          const warnings: Array<string> = [...fromArchive.warnings]
          const last = records.at(-1)?.seq ?? cursor
          for (const [i, row] of rows.entries()) {
            const record = StoreKit.decodeRecord(row.record)
            if (record === undefined) warnings.push(`${location}: skipped row ${i + 1}, which is not a record`)
            // Rows restored from an archive another reader still saw archived are not repeated.
            else if (record.seq > last) records.push(record)
          }
          // A read from the start (or one that found rows) knows the stored seq: the first
          // append need not read it (once numbered, reads take no lock). One appended meanwhile
          // elsewhere clashes and is renumbered.
          if (seq === undefined && archived === undefined && warnings.length === 0 && (cursor === 0 || rows.length > 0)) {
            const stored = records.at(-1)?.seq ?? cursor
            yield* lock.withPermit(Effect.sync(() => void (seq ??= stored)))
          }
          return { records, warnings }
        })
      ))

    const read: Effect.Effect<SessionStore.ReadResult, SessionError.SessionError> = readAfter(0)

    const readFrom = (cursor: number): Effect.Effect<SessionStore.ReadFromResult, SessionError.SessionError> =>
      readAfter(cursor).pipe(Effect.map((r) => ({ ...r, cursor: r.records.at(-1)?.seq ?? cursor })))

    const forget = lock.withPermit(Effect.sync(() => (seq = undefined)))

    return { location, append, sync, read, readFrom, forget } satisfies PgTranscript
  })
