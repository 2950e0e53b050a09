/**
 * @dsh/subagent-outofprocess: the shared out-of-process run driver (no provider of its own).
 * `subagent-acp` and `subagent-dsh-sdk` are records of hooks over it.
 */
export * from "./OutOfProcessBackend.ts"
export * from "./OutOfProcessDriver.ts"
