/**
 * @dsh/subprocess/testing: checks that a process tree is gone — `isGone(pid)` (ESRCH or a
 * zombie), `survivors(pids)` (bounded polling, returns the ones still alive) and `readPids(file)`
 * (pids a script recorded, one per line) — and helpers for tests that start children
 * (`readUntil`, `grandchildScript`, `tempPidFile`), on any test runner: no runner is imported
 * here. `processLauncherSuite`, the vitest suite every launcher runs, is `@dsh/subprocess/conformance`.
 */
export * as ChildScripts from "./testing/ChildScripts.ts"
export * as ProcessChecks from "./testing/ProcessChecks.ts"
