/**
 * Test fixtures for users of `@dsh/session`: `MemorySessionStore.layer` replaces the file
 * store with one that behaves the same (errors, ordering, seq, sync-before-visible) in memory.
 */
export * as MemorySessionStore from "./MemorySessionStore.ts"
