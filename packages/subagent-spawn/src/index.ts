/** @dsh/subagent-spawn: the in-process backend for fresh, cold-resumable children. */
export * from "./SpawnProvider.ts"
