/**
 * Test fixtures for users of `@dsh/session`: `MemorySessionStore.layer` replaces the file
 * store with one that behaves the same (errors, ordering, seq, sync-before-visible) in memory;
 * `sessionStoreSuite` is the conformance suite every store runs (it needs vitest, an optional peer
 * dependency of this package).
 */
export * as MemorySessionStore from "./MemorySessionStore.ts"
export * from "./testing/SessionStoreSuite.ts"
