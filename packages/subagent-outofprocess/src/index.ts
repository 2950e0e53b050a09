/**
 * @dsh/subagent-outofprocess: the shared out-of-process run driver (no provider of its own).
 * `subagent-acp` and `subagent-dsh-sdk` are records of hooks over it.
 */
export * as OutOfProcessBackend from "./OutOfProcessBackend.ts"
export * as OutOfProcessDriver from "./OutOfProcessDriver.ts"
