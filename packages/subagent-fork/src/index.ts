/** @dsh/subagent-fork: the in-process backend for children seeded with their parent's conversation. */
export * from "./ForkProvider.ts"
export * from "./ForkSeed.ts"
