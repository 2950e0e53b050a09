import type { Effect } from "effect"
import type { Readable } from "node:stream"
import type { LiveTree } from "@dsh/view"

/** What a command may touch of the outside world; tests pass their own. */
export interface CliContext {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  readonly home: string
  /** Where output goes; a terminal (`isTTY`) gets live views. */
  readonly stdout: LiveTree.TerminalOut
  readonly stderr: LiveTree.TerminalOut
  readonly stdin: Readable & { readonly isTTY?: boolean | undefined }
  /** Completes on the first SIGINT, SIGTERM or SIGHUP, for commands that stop gracefully (`run`). */
  readonly interrupted: Effect.Effect<void>
}
