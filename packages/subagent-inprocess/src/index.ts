/**
 * @dsh/subagent-inprocess: the shared in-process run driver (no provider of its own).
 * `subagent-spawn` and `subagent-fork` both run their children through it.
 */
export * from "./InProcessDriver.ts"
export * from "./MemoryTranscript.ts"
