/**
 * A `Transcript` as rows of `dsh_events` (`agent` '' for the main agent, else the child's name),
 * written through: each `append` returns once its row is committed, so every reader sees it at
 * once; appends made while an INSERT of the transcript is in flight go in together with the next
 * one (group commit), so concurrent writers share round trips. Like the file store's write without fsync, that commit does not wait for the WAL
 * flush (`synchronous_commit` off for that statement alone); `sync` makes everything appended so
 * far durable with one synchronous commit. A failed INSERT keeps its events, and they go in with
 * the next append. `seq` continues from the highest stored one, read on first append; an
 * archived transcript (`dsh_archive`) is read from its archive and restored by that first append.
 */
import { Events } from "@dsh/core"
import { type SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Effect, Semaphore } from "effect"
import { archivedLines, parseLines, restoreChild } from "./archive.ts"
import { type Db, run, toSessionError } from "./Db.ts"

/** A transcript of this store; `forget` drops its cached numbering (after its rows were archived). */
export interface PgTranscript extends SessionStore.Transcript {
  readonly forget: Effect.Effect<void>
}

/** Rows per INSERT at most (two parameters each, well under PostgreSQL's 65,535). */
const MAX_ROWS = 1000

/** One multi-row INSERT whose commit does not wait for the WAL flush. */
const insertSql = (rows: number): string => {
  const values = Array.from({ length: rows }, (_, i) => `($1, $2, $${3 + 2 * i}::bigint, $${4 + 2 * i})`).join(", ")
  return `INSERT INTO dsh_events (session_id, agent, seq, record)
SELECT v.session_id, v.agent, v.seq, v.record::json
FROM (VALUES ${values}) AS v (session_id, agent, seq, record)
CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`
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

  const insert = (batch: ReadonlyArray<Events.WireRecord>) => {
    const params: Array<unknown> = [sessionId, agent]
    for (const r of batch) params.push(String(r.seq), JSON.stringify(r))
    return db.sql.unsafe(insertSql(batch.length), params)
  }
  return { storedSeq, startSql, insert }
}

export const makePgTranscript = (db: Db, sessionId: string, agent: string, location: string): Effect.Effect<PgTranscript> =>
  Effect.gen(function*() {
    /** Numbering: the first append's read of the stored `seq`, and each append's number. */
    const lock = yield* Semaphore.make(1)
    /** Writing: one INSERT of this transcript at a time. */
    const writing = yield* Semaphore.make(1)
    /** The last `seq` handed out; read from the table on first append. */
    let seq: number | undefined
    /** Records appended but not yet in the table (a failed INSERT keeps them here). */
    let pending: Array<Events.WireRecord> = []
    /** Commits since the last synchronous one. */
    let unsynced = false

    const { storedSeq, startSql, insert } = statements(db, sessionId, agent)

    /**
     * Writes every pending record in one INSERT (group commit: appends made while the previous
     * INSERT was in flight go in together, each returning once its own row is committed). Call
     * only while holding `writing`; uninterruptible once started. Another writer may have taken
     * our numbers (two processes appending to one transcript, which the lease is there to
     * prevent): then the pending records are renumbered after its last one.
     */
    const flush: Effect.Effect<void, SessionError.SessionError> = Effect.suspend(() => {
      if (pending.length === 0) return Effect.void
      const count = Math.min(pending.length, MAX_ROWS)
      return insert(pending.slice(0, count)).pipe(
        Effect.catchIf((e) => e.reason._tag === "UniqueViolation", () =>
          lock.withPermit(Effect.gen(function*() {
            let next = yield* storedSeq
            pending = pending.map((r) => ({ ...r, seq: ++next }))
            seq = next
          })).pipe(Effect.andThen(Effect.suspend(() => insert(pending.slice(0, count)))))),
        Effect.mapError(toSessionError(db, `appending to ${location}`)),
        Effect.tap(() =>
          Effect.sync(() => {
            pending = pending.slice(count)
            unsynced = true
          })
        ),
        Effect.andThen(flush)
      )
    }).pipe(Effect.uninterruptible)

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
        pending.push(record)
        return record
      })).pipe(
        // Written through: returns once its row is committed, by this INSERT or one it joined.
        Effect.flatMap((record) => writing.withPermit(Effect.suspend(() => (pending.includes(record) ? flush : Effect.void))))
      )

    /** A synchronous commit: the WAL is flushed up to it, so every earlier commit is durable too. */
    const sync = writing.withPermit(flush.pipe(Effect.andThen(Effect.suspend(() =>
      unsynced
        ? run(db, `syncing ${location}`, db.sql`SELECT pg_current_xact_id()::text`).pipe(Effect.tap(() => Effect.sync(() => (unsynced = false))))
        : Effect.void
    ))))

    /** The records after `cursor` (a `seq`), archived ones first; flushed before reading. */
    const readAfter = (cursor: number): Effect.Effect<SessionStore.ReadResult, SessionError.SessionError> =>
      writing.withPermit(flush).pipe(Effect.andThen(run(
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
          return { records, warnings }
        })
      ))

    const read: Effect.Effect<SessionStore.ReadResult, SessionError.SessionError> = readAfter(0)

    const readFrom = (cursor: number): Effect.Effect<SessionStore.ReadFromResult, SessionError.SessionError> =>
      readAfter(cursor).pipe(Effect.map((r) => ({ ...r, cursor: r.records.at(-1)?.seq ?? cursor })))

    const forget = lock.withPermit(Effect.sync(() => (seq = undefined)))

    return { location, append, sync, read, readFrom, forget } satisfies PgTranscript
  })
