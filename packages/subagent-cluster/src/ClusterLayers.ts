import { NodeClusterSocket } from "@effect/platform-node"
import { type Duration, Option } from "effect"
import { RunnerAddress, type ShardingConfig } from "effect/cluster"

/** Where a runner listens and how the cluster reaches it. */
export interface RunnerAddressInput {
  readonly host: string
  readonly port: number
}

/** Timings of the cluster that decide how fast a dead runner's children move on. */
export interface ClusterTimings {
  /** How often runners check each other; a runner that stops answering loses its shards. Default 2 s. */
  readonly healthCheckInterval?: Duration.Input | undefined
  /** How often a runner reads the shard assignments. Default 1 s. */
  readonly refreshInterval?: Duration.Input | undefined
  /** Shards per group: the unit of moving work between runners. Default 300. */
  readonly shards?: number | undefined
}

const sharding = (timings: ClusterTimings): Partial<ShardingConfig.ShardingConfig["Service"]> => ({
  // A killed runner's shards move within about health check + refresh (was 5 s + 3 s; each costs
  // a few cheap statements per runner per interval).
  runnerHealthCheckInterval: timings.healthCheckInterval ?? "2 seconds",
  refreshAssignmentsInterval: timings.refreshInterval ?? "1 second",
  ...(timings.shards === undefined ? {} : { shardsPerGroup: timings.shards })
})

/**
 * A runner of the cluster: hosts entities (add `ChildEntityLive` with its `ChildHost`), keeps
 * messages and runner state in the SQL database of its context (a `SqlClient`, e.g. from
 * `@effect/sql-pg`), talks to the other runners over TCP. On shutdown it hands its shards over.
 */
export const clusterRunnerLayer = (options: { readonly listen: RunnerAddressInput; readonly advertise?: RunnerAddressInput | undefined } & ClusterTimings) => {
  const advertise = options.advertise ?? options.listen
  return NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: {
      ...sharding(options),
      runnerAddress: Option.some(RunnerAddress.make(advertise.host, advertise.port)),
      runnerListenAddress: Option.some(RunnerAddress.make(options.listen.host, options.listen.port))
    }
  })
}

/**
 * A member of the cluster that hosts nothing: what a parent needs to send its children's runs
 * to the runners (`makeClusterProvider`). Needs the cluster's `SqlClient`.
 */
export const clusterClientLayer = (options: ClusterTimings = {}) =>
  NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig: sharding(options) })
