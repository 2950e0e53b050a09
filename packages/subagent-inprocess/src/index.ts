/**
 * @dsh/subagent-inprocess: the in-process backends — `spawn` (a fresh child that sees only its
 * prompt) and `fork` (a child seeded with its parent's conversation) — and the run driver they
 * share, which other in-process backends can build on.
 */
export * as ForkProvider from "./ForkProvider.ts"
export * as ForkSeed from "./ForkSeed.ts"
export * as InProcessDriver from "./InProcessDriver.ts"
export * as MemoryTranscript from "./MemoryTranscript.ts"
export * as SpawnProvider from "./SpawnProvider.ts"
