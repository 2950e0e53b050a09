/**
 * @dsh/subagent-cluster: children on a cluster of runners through Effect Cluster. Each child is
 * an entity keyed by session and handle; its runs are persisted messages answered by whichever
 * runner owns its shard; the lane is shared by the whole cluster through PostgreSQL.
 */
export * from "./ChildEntity.ts"
export * from "./ChildHost.ts"
export * from "./ChildRunner.ts"
export * from "./ClusterProvider.ts"
export * from "./ClusterLane.ts"
export * from "./ClusterLayers.ts"
export * from "./ClusterMember.ts"
export * from "./RunnerListen.ts"
export * from "./RunnerPresence.ts"
