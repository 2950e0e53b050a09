import type { Vocabulary } from "@dsh/subagent"
import { OutOfProcessDriver } from "@dsh/subagent-outofprocess"
import type { ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { dshSdkAgentType, type DshSdkProviderOptions } from "./DshSdkOptions.ts"
import { sdkChildBackend } from "./internal/ChildRun.ts"

/**
 * A continuable out-of-process backend: each child is a `dsh sdk` process (its own tools,
 * its own subagents where its limits allow) with its own persisted session under the
 * parent's `agents/<handle>/` (the child's `DSH_HOME`). `start` creates that session and runs
 * the prompt; `continue` starts a new process and reloads the session (cold), so a child
 * survives its parent's restart with its context intact. Messages queued while a child runs
 * are sent to the same process as further turns (warm). Interrupting a run sends
 * `session.cancel`, waits `cancelGrace`, closes stdin and, if needed, signals the process
 * group, so the child's own descendants stop with it. It is a record of hooks over the shared
 * out-of-process driver; processes start through the `ProcessLauncher` of the context the
 * provider is made in.
 */
export const make = (options: DshSdkProviderOptions): Effect.Effect<Vocabulary.SubagentProvider, never, ProcessLauncher.ProcessLauncher> =>
  OutOfProcessDriver.makeOutOfProcessProvider(sdkChildBackend(options))

/** The provider with its `sdk:dsh` type, as a harness registers it. */
export const makeDshSdkBackend = (options: DshSdkProviderOptions): Effect.Effect<Vocabulary.SubagentBackend, never, ProcessLauncher.ProcessLauncher> =>
  Effect.map(make(options), (provider) => ({ provider, types: [dshSdkAgentType(provider.name)] }))
