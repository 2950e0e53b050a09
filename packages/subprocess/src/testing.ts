/**
 * @dsh/subprocess/testing: checks that a process tree is gone — `isGone(pid)` (ESRCH or a
 * zombie), `survivors(pids)` (bounded polling, returns the ones still alive) and `readPids(file)`
 * (pids a script recorded, one per line) — helpers for tests that start children (`readUntil`,
 * `grandchildScript`, `tempPidFile`), and `processLauncherSuite`, the conformance suite every
 * launcher runs (it needs vitest, an optional peer dependency of this package).
 */
export * from "./testing/ChildScripts.ts"
export * from "./testing/ProcessChecks.ts"
export * from "./testing/ProcessLauncherSuite.ts"
