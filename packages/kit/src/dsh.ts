/**
 * @dsh/kit/dsh: dsh's own harness, the one the `dsh` CLI runs, as a library: every backend
 * (in process, `sdk:dsh`, `acp:*`, `a2a:*`, a cluster), agent files, built-in tools, config.toml's
 * permissions, hooks and models. A harness that wants dsh's behaviour without its CLI starts here.
 */
export * as DshHarness from "./DshHarness.ts"
export * as DshModels from "./DshModels.ts"
export * as DshListing from "./DshListing.ts"
export * as DshRun from "./DshRun.ts"
export * as DshDoctor from "./DshDoctor.ts"
export * as DshChildren from "./DshChildren.ts"
export * as DshStore from "./DshStore.ts"
export * as DshA2a from "./DshA2a.ts"
export * as DshFlags from "./DshFlags.ts"
export * as DshSessions from "./DshSessions.ts"
