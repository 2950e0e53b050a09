/**
 * @dsh/subagent: the `ctx.subagents` service. A named-provider registry per agent context,
 * the vocabulary every backend shares, the tree-wide limits and lane, unique child handles,
 * the persisted records (Schemas), background announcements, cross-process stop, and the
 * archive and prune of settled children and old sessions.
 */
export * as AnnounceStep from "./AnnounceStep.ts"
export * as Archiving from "./Archiving.ts"
export * as ChildRefs from "./ChildRefs.ts"
export * as Detach from "./Detach.ts"
export * as Lane from "./Lane.ts"
export * as Limits from "./Limits.ts"
export * as Records from "./Records.ts"
export * as ReportedOutput from "./ReportedOutput.ts"
export * as SessionMaintenance from "./SessionMaintenance.ts"
export * as SessionRecovery from "./SessionRecovery.ts"
export * as SessionRequests from "./SessionRequests.ts"
export * as Specification from "./Specification.ts"
export * as SubagentError from "./SubagentError.ts"
export * as SubagentInfo from "./SubagentInfo.ts"
export * as Subagents from "./Subagents.ts"
export * as SubagentTree from "./SubagentTree.ts"
export * as Vocabulary from "./Vocabulary.ts"
export * as Worktrees from "./Worktrees.ts"
