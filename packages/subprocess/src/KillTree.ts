import { Effect } from "effect"
import treeKill from "tree-kill"
import { SubprocessError } from "./SubprocessError.ts"

/**
 * Signals a process and its descendants by walking the process table (tree-kill). Only for
 * processes we did not spawn: children of a launcher lead their own process group, which also
 * catches grandchildren whose parent already exited, something this walk cannot find.
 */
export const killTree = (pid: number, signal: NodeJS.Signals = "SIGTERM"): Effect.Effect<void, SubprocessError> =>
  Effect.callback<void, SubprocessError>((resume) => {
    treeKill(pid, signal, (error) => {
      resume(
        error === undefined || error === null
          ? Effect.void
          : Effect.fail(new SubprocessError({ reason: "Io", command: `kill ${pid}`, detail: `could not send ${signal}: ${error.message}` }))
      )
    })
  })
