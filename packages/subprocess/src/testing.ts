/**
 * @dsh/subprocess/testing: checks that a process tree is gone — `isGone(pid)` (ESRCH or a
 * zombie), `survivors(pids)` (bounded polling, returns the ones still alive) and `readPids(file)`
 * (pids a script recorded, one per line). For tests of anything that starts processes.
 */
export * from "./testing/ProcessChecks.ts"
