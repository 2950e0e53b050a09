/**
 * @dsh/subagent-dsh-sdk: a continuable out-of-process backend. Each child is a `dsh sdk`
 * process driven by the `@dsh/sdk` client: its own persisted session, tools and subagents,
 * stopped with its whole process tree.
 */
export * as Continuation from "./Continuation.ts"
export * as DshSdkOptions from "./DshSdkOptions.ts"
export * as DshSdkProvider from "./DshSdkProvider.ts"
