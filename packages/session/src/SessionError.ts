import { Schema } from "effect"

/**
 * Every failure of a session store. `reason` says what went wrong; `detail` is the
 * one-line message a CLI prints (`unknown session "<id>"`, the failing path and errno, …).
 * - `NotFound`: no such session.
 * - `InvalidId`: a session id, child name or run id that is not a safe path segment.
 * - `Exists`: `create` with an id that is already taken.
 * - `Corrupt`: a state file that exists but cannot be read as what it should be.
 * - `StateMissing`: the session's state is gone while its transcript (children, tasks) is there;
 *   `SessionStore.recover` rebuilds it.
 * - `Owned`: another live process holds the session's ownership lease (`detail` names it).
 * - `Io`: the storage itself failed (disk full, permissions, …).
 */
export class SessionError extends Schema.TaggedError<SessionError>()("SessionError", {
  reason: Schema.Literals(["NotFound", "InvalidId", "Exists", "Corrupt", "StateMissing", "Owned", "Io"]),
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}
