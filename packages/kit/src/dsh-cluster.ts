/**
 * @dsh/kit/dsh-cluster: dsh's harness on an Effect Cluster over PostgreSQL (`dsh run --cluster`,
 * `dsh runner`). Its own entry: it needs the optional peer `@dsh/subagent-cluster`.
 */
export * as DshCluster from "./DshCluster.ts"
