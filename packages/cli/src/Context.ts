import type { Effect } from "effect"
import type { Readable, Writable } from "node:stream"

/** What a command may touch of the outside world; tests pass their own. */
export interface CliContext {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  readonly home: string
  readonly stdout: Writable
  readonly stderr: Writable
  readonly stdin: Readable & { readonly isTTY?: boolean | undefined }
  /** Completes on the first SIGINT, SIGTERM or SIGHUP, for commands that stop gracefully (`run`). */
  readonly interrupted: Effect.Effect<void>
}
