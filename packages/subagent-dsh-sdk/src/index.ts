/**
 * @dsh/subagent-dsh-sdk: a continuable out-of-process backend. Each child is a `dsh sdk`
 * process driven by the `@dsh/sdk` client: its own persisted session, tools and subagents,
 * stopped with its whole process tree.
 */
export * from "./Continuation.ts"
export * from "./DshSdkOptions.ts"
export * from "./DshSdkProvider.ts"
