import type { SessionError, SessionStore } from "@dsh/session"
import { PgSessionStore } from "@dsh/session-pg"
import type { Lane } from "@dsh/subagent"
import { PgClient } from "@effect/sql-pg"
import { type Config, Effect, Layer, type Redacted } from "effect"
import type { MessageStorage, Runners, Sharding } from "effect/cluster"
import type { SocketServer } from "effect/socket"
import type { SqlClient, SqlError } from "effect/sql"
import { layer as clusterLaneLayer, type ClusterLaneOptions } from "./ClusterLane.ts"
import { clusterClientLayer, clusterRunnerLayer, type ClusterTimings, type RunnerAddressInput } from "./ClusterLayers.ts"
import { deadRunnerWatchLayer } from "./DeadRunnerWatch.ts"

/** Options of `clusterMemberLayer`. */
export interface ClusterMemberOptions extends ClusterTimings {
  /** The cluster's database: sessions, the cluster's messages and runners, the lane. */
  readonly url: string | Redacted.Redacted<string>
  /** Host children here (a runner), listening there; without it, a member that only sends runs (a parent). */
  readonly runner?: { readonly listen: RunnerAddressInput; readonly advertise?: RunnerAddressInput | undefined } | undefined
  /** The lane shared by the cluster (`max_concurrent` across every process). */
  readonly lane?: ClusterLaneOptions | undefined
  /** The pool's size (default 10). */
  readonly maxConnections?: number | undefined
}

/**
 * Everything a process of the cluster shares through one PostgreSQL pool: the session store
 * (`PgSessionStore`), the cluster's `Sharding` (a runner or a client-only member) and the
 * cluster-wide `Lane`. Needs the `SubagentLimits` the lane's default size comes from. A runner
 * adds `ChildEntityLive` with its `ChildHost` on top.
 */
export const layer = (options: ClusterMemberOptions): Layer.Layer<
  Lane.Lane | SessionStore.SessionStore | Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | PgClient.PgClient | SqlClient.SqlClient,
  SessionError.SessionError | SqlError.SqlError | Config.ConfigError | SocketServer.SocketServerError
> => {
  // The session store's pool configuration: multiplexed (the statements of a process's concurrent
  // children are pipelined into shared writes: 1,000 children on 3 runners, 60-64 -> 67-71
  // children/s, runners' CPU -12%), keepalive, and statements failed when the server goes silent.
  const pg = Layer.unwrap(Effect.map(
    PgSessionStore.clientConfig({ url: options.url, maxConnections: options.maxConnections }),
    (config) => PgClient.layer({ ...config, applicationName: "dsh-cluster" })
  ))
  const sharding = options.runner === undefined ? clusterClientLayer(options) : clusterRunnerLayer({ ...options, ...options.runner })
  // A runner also watches for runners that died (see DeadRunnerWatch.ts): bounds the pause after a kill.
  const watch = options.runner === undefined
    ? Layer.empty
    : deadRunnerWatchLayer({ self: options.runner.advertise ?? options.runner.listen })
  return Layer.mergeAll(PgSessionStore.layerClient, sharding, clusterLaneLayer(options.lane), watch).pipe(Layer.provideMerge(pg))
}
