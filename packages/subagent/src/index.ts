/**
 * @dsh/subagent: the `ctx.subagents` service. A named-provider registry per agent context,
 * the vocabulary every backend shares, the tree-wide limits and lane, unique child handles
 * and the child descriptors persisted in `state.json`.
 */
export * from "./Lane.ts"
export * from "./Limits.ts"
export * from "./SubagentError.ts"
export * from "./Subagents.ts"
export * from "./SubagentTree.ts"
export * from "./Vocabulary.ts"
export type { DynamicAgentSpec } from "./internal/dynamicTypes.ts"
