/**
 * @dsh/subagent-cluster: children on a cluster of runners through Effect Cluster. Each child is
 * an entity keyed by session and handle; its runs are persisted messages answered by whichever
 * runner owns its shard; the lane is shared by the whole cluster through PostgreSQL.
 */
export * as ChildEntity from "./ChildEntity.ts"
export * as ChildHost from "./ChildHost.ts"
export * as ChildRunner from "./ChildRunner.ts"
export * as ClusterLane from "./ClusterLane.ts"
export * as ClusterLayers from "./ClusterLayers.ts"
export * as ClusterMember from "./ClusterMember.ts"
export * as ClusterProvider from "./ClusterProvider.ts"
export * as RunnerListen from "./RunnerListen.ts"
export * as RunnerPresence from "./RunnerPresence.ts"
