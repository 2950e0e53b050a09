/**
 * @dsh/subagent-inprocess: the in-process backends — `spawn` (a fresh child that sees only its
 * prompt) and `fork` (a child seeded with its parent's conversation) — and the run driver they
 * share, which other in-process backends can build on.
 */
export * from "./InProcessDriver.ts"
export * from "./MemoryTranscript.ts"
export * from "./SpawnProvider.ts"
export * from "./ForkProvider.ts"
export * from "./ForkSeed.ts"
