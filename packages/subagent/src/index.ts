/**
 * @dsh/subagent: the `ctx.subagents` service. A named-provider registry per agent context,
 * the vocabulary every backend shares, the tree-wide limits and lane, unique child handles,
 * the persisted records (Schemas), background announcements, cross-process stop, and the
 * archive and prune of settled children and old sessions.
 */
export * from "./AnnounceStep.ts"
export * from "./Archiving.ts"
export * from "./ChildRefs.ts"
export * from "./Detach.ts"
export * from "./Lane.ts"
export * from "./Limits.ts"
export * from "./Records.ts"
export * from "./ReportedOutput.ts"
export * from "./SessionMaintenance.ts"
export * from "./SessionRecovery.ts"
export * from "./SessionRequests.ts"
export * from "./Specification.ts"
export * from "./SubagentError.ts"
export * from "./SubagentInfo.ts"
export * from "./Subagents.ts"
export * from "./SubagentTree.ts"
export * from "./Vocabulary.ts"
export * from "./Worktrees.ts"
