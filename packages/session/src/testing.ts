/**
 * @dsh/session/testing: fixtures for tests of anything that uses a `SessionStore`, on any test
 * runner (no runner is imported here). `MemorySessionStore` is re-exported from the main entry
 * for compatibility; `sampleSession`, `sampleTurnEvents` and `SessionStoreFixture` are what the
 * conformance suite uses; `OpenFiles.under(dir)` lists the files the process has open there. The
 * vitest suite itself is `@dsh/session/conformance`.
 */
export * as MemorySessionStore from "./MemorySessionStore.ts"
export * as OpenFiles from "./testing/OpenFiles.ts"
export * as Samples from "./testing/Samples.ts"
