import { Schema } from "effect"

export class SessionError extends Schema.TaggedError<SessionError>()("SessionError", {
  reason: Schema.Literals(["NotFound", "InvalidId", "Corrupt", "Io"]),
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}
