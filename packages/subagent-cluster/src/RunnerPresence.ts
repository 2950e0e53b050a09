import { Console, Duration, Effect, Exit, Option, Ref, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"

/** A cluster with no live runner, or a store the cluster cannot reach, for longer than the wait. */
export class ClusterUnavailable extends Schema.TaggedError<ClusterUnavailable>()("ClusterUnavailable", {
  reason: Schema.Literals(["NoRunner", "StoreUnreachable"]),
  message: Schema.String
}) {}

/** Options of `awaitRunner` (and of `makeClusterProvider`'s wait for a runner). */
export interface RunnerWaitOptions {
  /** How long to wait for a live runner before failing. Default 10 s (`[cluster] runner_wait_seconds`). */
  readonly wait?: Duration.Input | undefined
  /** The store as messages name it (see `displayStore`); default "the cluster's database". */
  readonly store?: string | undefined
  /** Told once when no runner is registered yet (default: one line on stderr, through Effect's `Console`). */
  readonly onWaiting?: ((notice: string) => Effect.Effect<void>) | undefined
  /**
   * How the runners are counted (default `liveRunnerCount`, one query each time). A provider
   * shares one cached count among all its runs (`sharedRunnerCount`), so dozens of waiting runs
   * cost one query a second, not one each.
   */
  readonly liveRunners?: Effect.Effect<number, ClusterUnavailable, SqlClient.SqlClient> | undefined
}

/** A store URL as messages show it: without its password (as `@dsh/session-pg` names stores). */
export const displayStore = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.password = ""
    return parsed.toString().replace(/\/$/, "")
  } catch {
    return url.replace(/:\/\/([^:/@]*):[^@]*@/, "://$1@")
  }
}

// Effect Cluster's SQL runner storage (`cluster_runners`): a runner's row is kept fresh by its
// shard-lock refresh and deleted when it shuts down; one older than the lock expiration (35 s by
// default) is a runner that died. This is the same test `RunnerStorage.getRunners` applies.
const LIVE_WITHIN_SECONDS = 35

/** How many runners are registered and alive in the cluster's database now. */
export const liveRunnerCount: Effect.Effect<number, ClusterUnavailable, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly n: number }>`
    SELECT count(*)::int AS n FROM cluster_runners
    WHERE healthy AND last_heartbeat > NOW() - make_interval(secs => ${LIVE_WITHIN_SECONDS})`.pipe(
      // No table yet (SQLSTATE 42P01): no runner ever started on this database.
      Effect.catchIf((e) => driverError(e)?.code === "42P01", () => Effect.succeed([{ n: 0 }]))
    )
  return rows[0]?.n ?? 0
}).pipe(Effect.mapError((e) => new ClusterUnavailable({ reason: "StoreUnreachable", message: firstLine(driverError(e)?.message ?? e.message) })))

/**
 * `liveRunnerCount` shared by everyone who uses the returned effect: a count that found a live
 * runner is reused for a second; "none" and failures are never reused, so a wait sees the first
 * runner as soon as it registers.
 */
export const sharedRunnerCount: Effect.Effect<Effect.Effect<number, ClusterUnavailable, SqlClient.SqlClient>> = Effect.cachedWithTTL(
  liveRunnerCount,
  (exit) => (Exit.isSuccess(exit) && exit.value > 0 ? "1 second" : 0)
)

/** The driver's own error under a `SqlError` (`connect ECONNREFUSED …`, a SQLSTATE `code`). */
const driverError = (e: { readonly reason?: unknown }): { readonly code?: unknown; readonly message?: string } | undefined => {
  const cause = (e.reason as { readonly cause?: unknown } | undefined)?.cause
  return typeof cause === "object" && cause !== null ? cause as { readonly code?: unknown; readonly message?: string } : undefined
}

const firstLine = (text: string): string => text.split("\n")[0] ?? text

class NoneYet extends Schema.TaggedError<NoneYet>()("NoneYet", { cause: Schema.optional(Schema.String) }) {}

/**
 * Waits until a runner is registered and alive in the cluster's database. Without one it tells
 * `onWaiting` once (`waiting for a runner (none registered in <store>)`; not when the database
 * cannot be reached) and looks again four
 * times a second; after `wait` it fails with `ClusterUnavailable`, naming the store and what to
 * check. Interruptible at any point (it holds nothing).
 */
export const awaitRunner = (options: RunnerWaitOptions = {}): Effect.Effect<void, ClusterUnavailable, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const store = options.store ?? "the cluster's database"
    const wait = Duration.fromInputUnsafe(options.wait ?? "10 seconds")
    const check = (options.liveRunners ?? liveRunnerCount).pipe(
      Effect.mapError((e) => new NoneYet({ cause: e.message })),
      Effect.flatMap((n) => (n > 0 ? Effect.void : Effect.fail(new NoneYet({}))))
    )
    const first = yield* Effect.result(check)
    if (first._tag === "Success") return
    // The notice is for a database without runners; an unreachable one gets the failure alone.
    const notice = `waiting for a runner (none registered in ${store})`
    const told = yield* Ref.make(false)
    const tell = (e: NoneYet) =>
      e.cause !== undefined ? Effect.void : Ref.getAndSet(told, true).pipe(
        Effect.flatMap((done) => done ? Effect.void : options.onWaiting === undefined ? Console.error(notice) : options.onWaiting(notice))
      )
    yield* tell(first.failure)
    const last = yield* Ref.make(first.failure)
    const found = yield* check.pipe(
      Effect.tapError((e) => Effect.andThen(Ref.set(last, e), tell(e))),
      Effect.retry(Schedule.spaced("250 millis")),
      Effect.timeoutOption(wait),
      // The retry never gives up by itself: only the timeout ends it.
      Effect.orElseSucceed(() => Option.none())
    )
    if (Option.isSome(found)) return
    const seconds = Duration.toSeconds(wait)
    const cause = (yield* Ref.get(last)).cause
    return yield* cause === undefined
      ? new ClusterUnavailable({
        reason: "NoRunner",
        message: `no runner registered in ${store} after ${seconds} s: start one (dsh runner --store …) or check that the runners use this same database`
      })
      : new ClusterUnavailable({
        reason: "StoreUnreachable",
        message: `cannot reach the store ${store}: ${cause} (check that PostgreSQL is running there and the URL, user and password are right)`
      })
  })

/** `awaitRunner` where the context has a SQL client (a cluster over SQL storage); nothing to wait for otherwise. */
export const awaitRunnerIfSql = (options: RunnerWaitOptions = {}): Effect.Effect<void, ClusterUnavailable> =>
  Effect.serviceOption(SqlClient.SqlClient).pipe(
    Effect.flatMap((sql) => Option.isNone(sql) ? Effect.void : awaitRunner(options).pipe(Effect.provideService(SqlClient.SqlClient, sql.value)))
  )

/**
 * Watches a run's cluster while the run waits for its answer: once a second it looks for a live
 * runner; when there is none (its runner died and none took over) or the database cannot be
 * reached, it waits as `awaitRunner` does and fails when that wait fails. Never succeeds; without
 * a SQL client in the context it waits forever (nothing to watch).
 */
export const watchRunners = (options: RunnerWaitOptions = {}): Effect.Effect<never, ClusterUnavailable> =>
  Effect.serviceOption(SqlClient.SqlClient).pipe(Effect.flatMap((sql) => {
    if (Option.isNone(sql)) return Effect.never
    const look = (options.liveRunners ?? liveRunnerCount).pipe(
      Effect.flatMap((n) => (n > 0 ? Effect.void : awaitRunner(options))),
      Effect.catch(() => awaitRunner(options))
    )
    return Effect.andThen(Effect.sleep("1 second"), look).pipe(Effect.forever, Effect.provideService(SqlClient.SqlClient, sql.value))
  }))
