/**
 * The `SessionStore` in PostgreSQL, for sessions that several processes (and machines) share:
 * every process that opens the same database sees the same sessions, transcripts, children and
 * tasks, `updateState` never loses an update between processes, `watchState` is pushed with
 * LISTEN/NOTIFY, and the ownership lease is an advisory lock that PostgreSQL frees when its
 * holder's connection ends. The tables (all named `dsh_*`) are created or brought up to date when
 * the store starts.
 *
 * ```ts
 * PgSessionStore.layer({ url: "postgres://dsh:secret@db.internal:5432/dsh" })
 * ```
 *
 * @since 0.1.0
 */
import { Ids } from "@dsh/core"
import { SessionError, SessionStore, StoreKit, StoreSpec } from "@dsh/session"
import { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { type Db, run, toSessionError } from "./internal/Db.ts"
import { makeEventWriter } from "./internal/eventWriter.ts"
import { locationOf, makePgSessionHandle, readStateRow } from "./internal/handle.ts"
import { makeLease } from "./internal/lease.ts"
import { addressOf, makeConnector, mayUseTls } from "./internal/liveness.ts"
import { migrate } from "./internal/migrations.ts"
import { SELECT_STATES, type StateRow, stateOfRow } from "./internal/state.ts"
import { makeStateHub } from "./internal/watch.ts"

/** @since 0.1.0 */
export interface Options {
  /**
   * `postgres://user:password@host:port/database`. A schema other than the user's default is
   * chosen in the URL: `?options=-c%20search_path%3Ddsh`.
   */
  readonly url: string | Redacted.Redacted<string>
  /** The connection pool's size (default 10). A held lease uses a connection of its own. */
  readonly maxConnections?: number | undefined
  /**
   * TCP keepalive on every connection, after this much idle time (default 10 seconds; whole
   * seconds; `Duration.infinity` for none): a server host that vanished ends an idle connection
   * (a held lease's, the listener's) after it and ten unanswered probes a second apart.
   */
  readonly keepAlive?: Duration.Input | undefined
  /**
   * How long a statement may wait for the first byte of its answer before the store checks
   * that the server still answers (default 2 seconds; `Duration.infinity` for no check). The
   * check is a fresh connection's SSLRequest, which PostgreSQL answers before any login; with
   * no answer within the same time the connections still waiting are ended and their statements
   * fail with a `SessionError` (`Io`). This is not a statement timeout: while the server answers,
   * a slow statement (one waiting for a row lock) runs on, checked again less and less often.
   * A server that stopped answering fails a statement after about twice this time.
   */
  readonly unansweredTimeout?: Duration.Input | undefined
}

const valueOf = (url: string | Redacted.Redacted<string>): string => (typeof url === "string" ? url : Redacted.value(url))

/** `input` in milliseconds, undefined for infinity; a failure naming `option` when it is not a positive duration. */
const millisOf = (target: string, option: string, input: Duration.Input) => {
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration) || Duration.toMillis(duration.value) <= 0) {
    return Effect.fail(new SessionError.SessionError({ reason: "Io", detail: `${target}: ${option} must be a positive duration, not ${String(input)}` }))
  }
  return Effect.succeed(Duration.isFinite(duration.value) ? Duration.toMillis(duration.value) : undefined)
}

/**
 * The pool configuration `layer` uses for `options`: dsh's application name, multiplexing, and
 * connections with `keepAlive` and the `unansweredTimeout` check. For a client of your own
 * (`make`, `layerClient`): `PgClient.make(yield* PgSessionStore.clientConfig(options))`.
 *
 * @since 0.1.0
 */
export const clientConfig = (options: Options): Effect.Effect<PgClient.PgPoolConfig, SessionError.SessionError> =>
  Effect.gen(function*() {
    const url = valueOf(options.url)
    // Multiplexed: statements of concurrent fibers (children of one parent) share a connection's writes.
    const config: PgClient.PgPoolConfig = { url: Redacted.make(url), applicationName: "dsh", maxConnections: options.maxConnections, multiplex: true }
    const { target } = describeClient(config)
    const keepAliveMillis = yield* millisOf(target, "keepAlive", options.keepAlive ?? "10 seconds")
    const unansweredMillis = yield* millisOf(target, "unansweredTimeout", options.unansweredTimeout ?? "2 seconds")
    const keepAlive = keepAliveMillis === undefined ? undefined : Math.max(1, Math.floor(keepAliveMillis / 1000)) * 1000
    const address = addressOf(url)
    // Without the check (or for an address the client reads otherwise, several hosts) the client's own sockets do.
    if (unansweredMillis === undefined || address === undefined) return { ...config, keepAlive: keepAlive === undefined ? undefined : Duration.millis(keepAlive) }
    return { ...config, stream: makeConnector({ address, keepAliveMillis: keepAlive, unansweredMillis, tls: mayUseTls(url) }) }
  })

/** Where a client points, without its password: for `location` and for messages. */
const describeClient = (config: PgClient.PgClientConfig): Pick<Db, "target" | "address"> => {
  let fromUrl: URL | undefined
  try {
    fromUrl = config.url === undefined ? undefined : new URL(Redacted.value(config.url))
  } catch {
    fromUrl = undefined
  }
  const host = config.host ?? (fromUrl?.hostname || "localhost")
  const port = config.port ?? (fromUrl?.port ? Number(fromUrl.port) : 5432)
  const user = config.username ?? (fromUrl?.username ? decodeURIComponent(fromUrl.username) : undefined)
  const database = config.database ?? (fromUrl?.pathname.replace(/^\//, "") || undefined)
  const address = `${host}:${port}`
  const target = fromUrl !== undefined && config.host === undefined && config.port === undefined && config.username === undefined && config.database === undefined
    ? StoreSpec.displayUrl(fromUrl.href)
    : `postgres://${user === undefined ? "" : `${user}@`}${address}${database === undefined ? "" : `/${database}`}`
  return { target, address }
}

/**
 * Builds the store over a client (its pool serves every statement; a lease and the state
 * listener each take a connection of their own, configured as the client is): checks the
 * connection, runs the migrations, and returns the store. A client made with `clientConfig`
 * gets keepalive and the `unansweredTimeout` check. Handles are cached for the store's lifetime
 * (`open` of an id returns one object); leases and the listener end with the calling scope.
 *
 * @since 0.1.0
 */
export const make = (sql: PgClient.PgClient): Effect.Effect<SessionStore.SessionStoreShape, SessionError.SessionError, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const described = describeClient(sql.config)
    const rows = yield* run(described, "connecting", sql<{ readonly schema: string | null }>`SELECT current_schema() AS schema`)
    const schema = rows[0]?.schema
    if (schema === null || schema === undefined) {
      return yield* new SessionError.SessionError({ reason: "Io", detail: `${described.target}: no schema to work in (the search_path names none that exists)` })
    }
    const db: Db = { sql, ...described, schema }
    yield* migrate(db)
    const hub = yield* makeStateHub(db, scope)
    const events = yield* makeEventWriter(db)
    const handles = StoreKit.makeHandleCache()


    const create: SessionStore.SessionStoreShape["create"] = (init) =>
      Effect.gen(function*() {
        const id = init.id ?? Ids.makeId(new Date(yield* Clock.currentTimeMillis))
        yield* StoreKit.checkId("session id", id)
        const state = StoreKit.initialState(id, init, yield* StoreKit.nowIso)
        const inserted = yield* run(
          db,
          `creating session "${id}"`,
          sql`INSERT INTO dsh_sessions (id, state, created_at, updated_at)
            VALUES (${id}, ${JSON.stringify(state)}::jsonb, ${state.createdAt}::timestamptz, ${state.updatedAt}::timestamptz)
            ON CONFLICT (id) DO NOTHING RETURNING id`
        )
        if (inserted.length === 0) return yield* new SessionError.SessionError({ reason: "Exists", detail: `session "${id}" already exists` })
        const made = yield* makePgSessionHandle(db, id, hub, scope, events)
        return handles.remember(made.handle, made.letGo)
      })

    const open: SessionStore.SessionStoreShape["open"] = (id) =>
      StoreKit.checkId("session id", id).pipe(Effect.andThen(Effect.suspend(() => {
        const known = handles.get(id)
        if (known !== undefined) return Effect.succeed(known)
        return readStateRow(db, id).pipe(
          Effect.andThen(makePgSessionHandle(db, id, hub, scope, events)),
          Effect.map((made) => handles.remember(made.handle, made.letGo))
        )
      })))

    /** Every row, each decoded or with the reason it cannot be. */
    const allRows = run(db, "listing sessions", sql.unsafe<StateRow>(SELECT_STATES)).pipe(
      Effect.flatMap((found) => Effect.forEach(found, (row) => Effect.result(stateOfRow(row, locationOf(db, row.id))).pipe(Effect.map((result) => ({ id: row.id, result })))))
    )

    const list: SessionStore.SessionStoreShape["list"] = allRows.pipe(Effect.map((found) =>
      StoreKit.newestFirst(found.flatMap((r) => (r.result._tag === "Success" ? [r.result.success] : [])))
    ))

    const unreadable: SessionStore.SessionStoreShape["unreadable"] = allRows.pipe(Effect.map((found) =>
      found
        .flatMap((r) => (r.result._tag === "Failure" ? [{ id: r.id, error: r.result.failure.message }] : []))
        .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    ))

    const LATEST_BATCH = 50
    const latest: SessionStore.SessionStoreShape["latest"] = (filter) =>
      Effect.gen(function*() {
        const cwd = filter?.cwd ?? null
        // The newest rows by the indexed column; the first that decodes is the answer, as `latestOf` would pick it.
        const candidates = yield* run(
          db,
          "finding the latest session",
          sql.unsafe<StateRow>(`${SELECT_STATES} WHERE $1::text IS NULL OR s.state->>'cwd' = $1::text
            ORDER BY s.updated_at DESC, s.id COLLATE "C" DESC LIMIT ${LATEST_BATCH}`, [cwd])
        )
        const decoded: Array<SessionStore.SessionState> = []
        for (const row of candidates) {
          const result = yield* Effect.result(stateOfRow(row, locationOf(db, row.id)))
          if (result._tag === "Success") decoded.push(result.success)
        }
        const found = decoded.length > 0 || candidates.length < LATEST_BATCH
          ? StoreKit.latestOf(decoded, filter)
          : StoreKit.latestOf(yield* list, filter)
        return found === undefined ? undefined : yield* open(found.id)
      })

    /**
     * Deletes a session with every row of it (the foreign keys cascade), under a lease of its
     * own: a session any process runs — this one included — is refused as `Owned`.
     */
    const remove: SessionStore.SessionStoreShape["remove"] = (id) =>
      StoreKit.checkId("session id", id).pipe(
        Effect.andThen(readStateRow(db, id)),
        Effect.andThen(Effect.scoped(Effect.gen(function*() {
          const lease = yield* makeLease(db, id, yield* Effect.scope)
          yield* lease.acquire
          yield* run(db, `removing session "${id}"`, sql`DELETE FROM dsh_sessions WHERE id = ${id}`)
        }))),
        Effect.andThen(Effect.sync(() => handles.forget(id))),
        Effect.asVoid
      )

    return SessionStore.SessionStore.of({ create, open, list, unreadable, latest, remove, release: handles.release })
  })

/**
 * The store over the `PgClient` in context (shared with other users of the database, such as
 * Effect Cluster's storage).
 *
 * @since 0.1.0
 */
export const layerClient: Layer.Layer<SessionStore.SessionStore, SessionError.SessionError, PgClient.PgClient> = Layer.effect(
  SessionStore.SessionStore,
  Effect.gen(function*() {
    return yield* make(yield* PgClient.PgClient)
  })
)

/**
 * The store as the `SessionStore` service, over a pool of its own to `url` (`clientConfig`).
 * Building the layer fails with a one-line `SessionError` (`Io`) when the server cannot be
 * reached or the login is refused.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<SessionStore.SessionStore, SessionError.SessionError> =>
  Layer.effect(
    SessionStore.SessionStore,
    Effect.gen(function*() {
      const config = yield* clientConfig(options)
      const sql = yield* PgClient.make(config).pipe(
        Effect.provide(Reactivity.layer),
        Effect.mapError(toSessionError(describeClient(config), "connecting"))
      )
      return yield* make(sql)
    })
  )
