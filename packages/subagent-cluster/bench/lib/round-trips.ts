// Counts the statements (each one round trip to the server) a run sent to one database, by kind,
// from PostgreSQL's own `pg_stat_statements` (the server preloads it for the bench), so nothing in
// the processes under test is wrapped or changed.
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"

/** What a statement is for, by the table or function it names (first match wins). */
const KINDS: ReadonlyArray<readonly [string, RegExp]> = [
  ["message", /cluster_messages/],
  ["reply", /cluster_replies/],
  ["lane", /dsh_lane|'dsh_lane'/],
  ["transcript", /dsh_events|pg_current_xact_id/],
  ["meta", /dsh_children/],
  ["admission (session state)", /dsh_sessions|dsh_session_state|dsh_state_patches/],
  ["tasks", /dsh_tasks/],
  ["runners and shards", /cluster_runners|cluster_locks|pg_advisory|pg_try_advisory|advisory_unlock/],
  ["begin/commit", /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i],
  ["listen", /^\s*(LISTEN|UNLISTEN)/i]
]

export const kindOf = (query: string): string => KINDS.find(([, re]) => re.test(query))?.[0] ?? "other"

export interface RoundTrips {
  /** Statements by kind. */
  readonly byKind: Record<string, number>
  readonly total: number
  /** Committed transactions (`pg_stat_database.xact_commit`): each one a WAL flush with durability on. */
  readonly commits: number
  /** Transcript events stored: the parent's (agent '') and the children's. */
  readonly events: { readonly parent: number; readonly children: number }
  /** The statements sent most often, for the profile. */
  readonly top: ReadonlyArray<{ readonly calls: number; readonly query: string }>
}

/** A counter over the server's maintenance database; `reset` before a run, `read` after it. */
export const makeCounter = async (adminUrl: string) => {
  const run = <A>(effect: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>, url = adminUrl) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
      return yield* effect(sql)
    })).pipe(Effect.provide(Reactivity.layer)))
  await run((sql) => sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
  const commitsOf = (sql: PgClient.PgClient, database: string) =>
    sql<{ n: string }>`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = ${database}`.pipe(Effect.map((r) => Number(r[0]?.n ?? 0)))
  let commitsBefore = 0
  return {
    reset: (database: string) =>
      run((sql) => Effect.gen(function*() {
        yield* sql`SELECT pg_stat_statements_reset()`
        yield* sql`SELECT pg_stat_clear_snapshot()`
        commitsBefore = yield* commitsOf(sql, database)
      })),
    read: async (database: string, url: string): Promise<RoundTrips> => {
      const stored = await run((sql) => sql<{ parent: boolean; n: string }>`SELECT agent = '' AS parent, count(*)::text AS n FROM dsh_events GROUP BY 1`, url)
      const events = {
        parent: Number(stored.find((r) => r.parent)?.n ?? 0),
        children: Number(stored.find((r) => !r.parent)?.n ?? 0)
      }
      return run((sql) => Effect.gen(function*() {
        yield* sql`SELECT pg_stat_clear_snapshot()`
        const rows = yield* sql<{ query: string; calls: string }>`
          SELECT s.query, s.calls::text AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = ${database} ORDER BY s.calls DESC`
        const byKind: Record<string, number> = {}
        let total = 0
        for (const r of rows) {
          const kind = kindOf(r.query)
          byKind[kind] = (byKind[kind] ?? 0) + Number(r.calls)
          total += Number(r.calls)
        }
        const commits = (yield* commitsOf(sql, database)) - commitsBefore
        const top = rows.slice(0, Number(process.env.BENCH_TOP ?? 12)).map((r) => ({ calls: Number(r.calls), query: r.query.replace(/\s+/g, " ").slice(0, 140) }))
        return { byKind, total, commits, events, top }
      }))
    }
  }
}
