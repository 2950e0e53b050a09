import { Schema } from "effect"

export class SubprocessError extends Schema.TaggedError<SubprocessError>()("SubprocessError", {
  reason: Schema.Literals(["SpawnFailed", "Io"]),
  command: Schema.String,
  detail: Schema.String,
  /** The last bytes the process wrote to stderr, if any. */
  stderrTail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${this.command}: ${this.detail}`
  }
}
