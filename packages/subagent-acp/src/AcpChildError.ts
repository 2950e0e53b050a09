import { Schema } from "effect"

/**
 * Why an ACP child could not finish its turn. The provider turns every one of these into a
 * `failed` outcome whose notes say what happened; none of them reaches the parent as an error.
 * - `SpawnFailed`: the command could not be started (no longer raised: the out-of-process driver
 *   starts the process and words the launcher's `SubprocessError` as "cannot start the ACP agent");
 * - `InitializeTimeout`: no `initialize` answer within the bound (readiness never came);
 * - `ProtocolViolation`: the agent wrote something that is not JSON-RPC, or a frame too large;
 * - `ProcessExited`: the agent's process ended before its turn did;
 * - `RequestFailed`: a request was answered with an error, or the connection closed under it;
 * - `Setup`: preparing the run failed (state directory, configuration);
 * - `Unsupported`: the agent cannot do what was asked (e.g. load a session it did not advertise).
 */
export class AcpChildError extends Schema.TaggedError<AcpChildError>()("AcpChildError", {
  reason: Schema.Literals(["SpawnFailed", "InitializeTimeout", "ProtocolViolation", "ProcessExited", "RequestFailed", "Setup", "Unsupported"]),
  message: Schema.String
}) {}
