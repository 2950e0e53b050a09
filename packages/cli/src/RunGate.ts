import { Context, Effect } from "effect"

/**
 * What `dsh run` waits for before its prompt starts: nothing, or (with `--cluster`) a live runner
 * of the cluster. A failure is the run's: its message is the one line of a failed run.
 */
export const RunGate = Context.Reference<Effect.Effect<void, { readonly message: string }>>("@dsh/cli/RunGate", {
  defaultValue: () => Effect.void
})
