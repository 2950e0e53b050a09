import type { HarnessOptions } from "@dsh/harness"
import { ForkProvider, SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect } from "effect"
import type { CreateSubagentsOptions } from "../Options.ts"
import { SubagentsError } from "../SubagentsError.ts"

/**
 * The kit's backends: the caller's (default: fresh and forked in-process children), plus the
 * `acp` backend when ACP agents are given. The ACP packages are loaded only then.
 */
export const kitBackends = (options: CreateSubagentsOptions): Effect.Effect<ReadonlyArray<HarnessOptions.BackendInput>, SubagentsError> =>
  Effect.gen(function*() {
    const base = options.backends ?? [SpawnProvider.SpawnProvider, ForkProvider.ForkBackend]
    if (options.acp === undefined || options.acp.length === 0) return base
    const agents = options.acp
    const [acp, subprocess] = yield* Effect.tryPromise({
      try: () => Promise.all([import("@dsh/subagent-acp"), import("@dsh/subprocess")]),
      catch: (e) => new SubagentsError("Failed", `the ACP backend could not be loaded: ${e instanceof Error ? e.message : String(e)}`)
    })
    const backend = yield* acp.AcpProvider.makeAcpBackend({ agents }).pipe(Effect.provide(subprocess.LocalProcessLauncher.layer()))
    return [...base, backend]
  })
