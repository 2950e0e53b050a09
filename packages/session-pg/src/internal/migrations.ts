/**
 * The store's tables, created on start by effect/sql's `Migrator` (its ledger: `dsh_migrations`).
 * Every name starts with `dsh_`, so the store can share a database (and a schema) with other
 * users, such as Effect Cluster's own tables. Append migrations; never edit one that shipped.
 *
 * ```text
 * dsh_sessions  id, state jsonb, created_at, updated_at, owner jsonb (the lease holder's identity)
 * dsh_events    session_id, agent ('' = main, else the child's name), seq, record json; unique (session_id, agent, seq)
 * dsh_children  session_id, name, meta jsonb
 * dsh_tasks     session_id, run_id, record jsonb
 * dsh_archive   session_id, name, bytes, archived_at, data bytea (a child's records as gzipped JSON lines)
 * dsh_state_patches  session_id, n, patch json: the state's changes after dsh_sessions.state_n (up to patch_n)
 * ```
 */
import { Effect } from "effect"
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql/SqlClient"
import { SessionError } from "@dsh/session"
import { type Db, lockKey, toSessionError } from "./Db.ts"

const MIGRATIONS: Record<string, Effect.Effect<void, unknown, SqlClient>> = {
  "1_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient
    yield* sql`CREATE TABLE dsh_sessions (
      id text PRIMARY KEY,
      state jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      owner jsonb
    )`
    yield* sql`CREATE INDEX dsh_sessions_updated ON dsh_sessions (updated_at DESC)`
    yield* sql`CREATE TABLE dsh_events (
      session_id text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      agent text NOT NULL,
      seq bigint NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (session_id, agent, seq)
    )`
    yield* sql`CREATE TABLE dsh_children (
      session_id text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      name text NOT NULL,
      meta jsonb,
      PRIMARY KEY (session_id, name)
    )`
    yield* sql`CREATE TABLE dsh_tasks (
      session_id text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      run_id text NOT NULL,
      record jsonb NOT NULL,
      PRIMARY KEY (session_id, run_id)
    )`
  }),
  "2_archive": Effect.gen(function*() {
    const sql = yield* SqlClient
    yield* sql`CREATE TABLE dsh_archive (
      session_id text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      name text NOT NULL,
      bytes bigint NOT NULL,
      archived_at timestamptz NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (session_id, name)
    )`
  }),
  // A change writes one patch row instead of the whole state (see state.ts); older rows read as before.
  "3_state_patches": Effect.gen(function*() {
    const sql = yield* SqlClient
    yield* sql`ALTER TABLE dsh_sessions ADD COLUMN state_n bigint NOT NULL DEFAULT 0, ADD COLUMN patch_n bigint NOT NULL DEFAULT 0`
    yield* sql`CREATE TABLE dsh_state_patches (
      session_id text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
      n bigint NOT NULL,
      patch json NOT NULL,
      PRIMARY KEY (session_id, n)
    )`
  })
}

const migrator = Migrator.make({})

/**
 * Brings the schema up to date. One transaction, opened by a transaction-scoped advisory lock, so
 * processes starting at once run the migrations one after the other (the second finds nothing
 * left to do); the Migrator's own transaction nests in it as a savepoint.
 */
export const migrate = (db: Db): Effect.Effect<void, SessionError.SessionError> =>
  db.sql.withTransaction(Effect.gen(function*() {
    yield* db.sql`SELECT pg_advisory_xact_lock(${lockKey(db, "migrate", "")}::bigint)`
    yield* migrator({ loader: Migrator.fromRecord(MIGRATIONS), table: "dsh_migrations" }).pipe(Effect.provideService(SqlClient, db.sql))
  })).pipe(Effect.catchTags({
    MigrationError: (e) => Effect.fail(new SessionError.SessionError({ reason: "Io", detail: `${db.target}: ${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ""}` })),
    SqlError: (e) => Effect.fail(toSessionError(db, "migrating the schema")(e))
  }))
