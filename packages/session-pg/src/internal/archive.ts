/**
 * A child's transcript moved into `dsh_archive`: its records as JSON lines, gzipped, in one row.
 * Archiving and restoring are each one transaction (rows copied, then deleted, or the other way
 * round), so a crash at any point leaves the transcript whole in one place or the other. `bytes`
 * is the size of the transcript as JSON lines (what the file store's `wire.jsonl` holds),
 * `archivedBytes` the size of the gzipped data.
 */
import { promisify } from "node:util"
import { gunzip, gzip } from "node:zlib"
import type { Events } from "@dsh/core"
import { type SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Effect } from "effect"
import { type Db, run } from "./Db.ts"

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)

const compress = (text: string): Effect.Effect<Buffer> => Effect.promise(() => gzipAsync(Buffer.from(text, "utf8"), { level: 6 }))

/** The archived lines of a row's data (an unreadable archive reads as none, with a warning). */
export const archivedLines = (data: Uint8Array, location: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.tryPromise(() => gunzipAsync(data)).pipe(
    Effect.map((text) => text.toString("utf8").split("\n").filter((line) => line !== "")),
    Effect.catch((cause) => Effect.as(Effect.logWarning(`${location}: the archive cannot be read: ${String(cause)}`), []))
  )

/** Records from JSON lines; lines that are not records are reported as warnings. */
export const parseLines = (lines: ReadonlyArray<string>, location: string): { records: Array<Events.WireRecord>; warnings: Array<string> } => {
  const records: Array<Events.WireRecord> = []
  const warnings: Array<string> = []
  for (const [i, line] of lines.entries()) {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      parsed = undefined
    }
    const record = StoreKit.decodeRecord(parsed)
    if (record !== undefined) records.push(record)
    else warnings.push(`${location}: skipped archived line ${i + 1}, which is not a record`)
  }
  return { records, warnings }
}

interface ArchiveRow {
  readonly name: string
  readonly bytes: string | number
  readonly archived_bytes: string | number
  readonly archived_at: Date | string
}

const asArchived = (row: ArchiveRow): SessionStore.ArchivedChild => ({
  name: row.name,
  bytes: Number(row.bytes),
  archivedBytes: Number(row.archived_bytes),
  archivedAt: new Date(row.archived_at).toISOString()
})

/** The archived data of one transcript, if it is archived. */
export const archiveData = (db: Db, sessionId: string, name: string): Effect.Effect<Uint8Array | undefined, SessionError.SessionError> =>
  run(db, `reading the archive of ${name}`, db.sql<{ readonly data: Uint8Array }>`SELECT data FROM dsh_archive WHERE session_id = ${sessionId} AND name = ${name}`)
    .pipe(Effect.map((rows) => rows[0]?.data))

/** The children of a session whose transcripts are archived, by name. */
export const archivedChildren = (db: Db, sessionId: string): Effect.Effect<ReadonlyArray<SessionStore.ArchivedChild>, SessionError.SessionError> =>
  run(
    db,
    `listing the archive of session "${sessionId}"`,
    db.sql<ArchiveRow>`SELECT name, bytes, octet_length(data) AS archived_bytes, archived_at FROM dsh_archive WHERE session_id = ${sessionId} ORDER BY name`
  ).pipe(Effect.map((rows) => rows.map(asArchived)))

/**
 * Moves a child's records into the archive (merged with what an earlier archive holds), or with
 * `dryRun` only reports what that would give. Undefined when the child has no live records.
 */
export const archiveChild = (db: Db, sessionId: string, name: string, dryRun: boolean): Effect.Effect<SessionStore.ArchivedChild | undefined, SessionError.SessionError> =>
  run(db, `archiving ${name} of session "${sessionId}"`, db.sql.withTransaction(Effect.gen(function*() {
    const live = yield* (dryRun
      ? db.sql<{ readonly n: string; readonly line: string }>`SELECT seq::text AS n, record::text AS line FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${name} ORDER BY seq`
      : db.sql<{ readonly n: string; readonly line: string }>`SELECT seq::text AS n, record::text AS line FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${name} ORDER BY seq FOR UPDATE`)
    if (live.length === 0) return undefined
    const earlier = yield* archiveData(db, sessionId, name)
    const lines = [...(earlier === undefined ? [] : yield* archivedLines(earlier, name)), ...live.map((r) => r.line)]
    const text = lines.map((line) => `${line}\n`).join("")
    const data = yield* compress(text)
    const archivedAt = yield* StoreKit.nowIso
    const archived: SessionStore.ArchivedChild = { name, bytes: Buffer.byteLength(text), archivedBytes: data.length, archivedAt }
    if (dryRun) return archived
    yield* db.sql`INSERT INTO dsh_archive (session_id, name, bytes, archived_at, data)
      VALUES (${sessionId}, ${name}, ${archived.bytes}, ${archivedAt}::timestamptz, ${data})
      ON CONFLICT (session_id, name) DO UPDATE SET bytes = EXCLUDED.bytes, archived_at = EXCLUDED.archived_at, data = EXCLUDED.data`
    // Only what was read: a row committed meanwhile (FOR UPDATE locks no row that did not exist) stays live, after the archive.
    yield* db.sql`DELETE FROM dsh_events WHERE session_id = ${sessionId} AND agent = ${name} AND seq <= ${live.at(-1)!.n}::bigint`
    return archived
  })))

/** Puts an archived transcript's records back; false when nothing was archived. */
export const restoreChild = (db: Db, sessionId: string, name: string): Effect.Effect<boolean, SessionError.SessionError> =>
  run(db, `restoring ${name} of session "${sessionId}"`, db.sql.withTransaction(Effect.gen(function*() {
    const rows = yield* db.sql<{ readonly data: Uint8Array }>`SELECT data FROM dsh_archive WHERE session_id = ${sessionId} AND name = ${name} FOR UPDATE`
    if (rows.length === 0) return false
    const lines = yield* archivedLines(rows[0]!.data, name)
    // One statement however long the transcript: the lines go as one text, split by the server.
    yield* db.sql`INSERT INTO dsh_events (session_id, agent, seq, record)
      SELECT ${sessionId}, ${name}, (line::json->>'seq')::bigint, line::json
      FROM regexp_split_to_table(${lines.join("\n")}, E'\\n') AS line WHERE line <> ''
      ON CONFLICT DO NOTHING`
    yield* db.sql`DELETE FROM dsh_archive WHERE session_id = ${sessionId} AND name = ${name}`
    return true
  })))

/** The bytes a session holds: transcripts as JSON lines, archives, state, tasks and children's meta. */
export const footprint = (db: Db, sessionId: string): Effect.Effect<number, SessionError.SessionError> =>
  run(db, `measuring session "${sessionId}"`, db.sql<{ readonly bytes: string | number | null }>`SELECT
      (SELECT coalesce(sum(octet_length(record::text) + 1), 0) FROM dsh_events WHERE session_id = ${sessionId})
    + (SELECT coalesce(sum(octet_length(data)), 0) FROM dsh_archive WHERE session_id = ${sessionId})
    + (SELECT coalesce(sum(octet_length(record::text)), 0) FROM dsh_tasks WHERE session_id = ${sessionId})
    + (SELECT coalesce(sum(octet_length(coalesce(meta::text, ''))), 0) FROM dsh_children WHERE session_id = ${sessionId})
    + (SELECT coalesce(sum(octet_length(patch::text)), 0) FROM dsh_state_patches WHERE session_id = ${sessionId})
    + (SELECT coalesce(octet_length(state::text), 0) FROM dsh_sessions WHERE id = ${sessionId}) AS bytes`).pipe(
    Effect.map((rows) => Number(rows[0]?.bytes ?? 0))
  )
