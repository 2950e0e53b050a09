import { Schema } from "effect"

/**
 * The one error of `@dsh/subprocess`. `reason` says what went wrong:
 * - `SpawnFailed`: the process never started (command not found, bad working directory, …);
 * - `ProcessExited`: a long-lived child (a protocol peer) ended when it should not have;
 *   protocol users build it with {@link processExitedError};
 * - `Io`: a system call around the process failed (signalling a tree we did not spawn, …).
 * A timeout is not an error: `run` reports it as `timedOut`.
 */
export class SubprocessError extends Schema.TaggedError<SubprocessError>()("SubprocessError", {
  reason: Schema.Literals(["SpawnFailed", "ProcessExited", "Io"]),
  command: Schema.String,
  detail: Schema.String,
  /** The last bytes the process wrote to stderr, if any. */
  stderrTail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${this.command}: ${this.detail}`
  }
}

/**
 * A `ProcessExited` error for a child that ended unexpectedly, with its exit status and the
 * tail of its stderr (usually the only clue to why it died).
 */
export const processExitedError = (
  command: string,
  exit: { readonly exitCode: number | null; readonly signal: string | null },
  stderrTail: string
): SubprocessError =>
  new SubprocessError({
    reason: "ProcessExited",
    command,
    detail: exit.signal !== null ? `exited on signal ${exit.signal}` : `exited with code ${exit.exitCode ?? "unknown"}`,
    ...(stderrTail === "" ? {} : { stderrTail })
  })
