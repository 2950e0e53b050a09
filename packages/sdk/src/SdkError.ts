import { Schema } from "effect"

/** Why an SDK call did not return a result. */
export const SdkErrorReason = Schema.Literals(["ConnectionClosed", "ProtocolViolation", "FrameTooLarge", "Timeout", "Remote"])
export type SdkErrorReason = typeof SdkErrorReason.Type

/**
 * The one error of the `@dsh/sdk` client. `reason` says what went wrong:
 * - `ConnectionClosed`: the peer closed the stream (or its process exited) while the call was pending,
 *   or the connection was already closed; every pending call is rejected with it at once;
 * - `ProtocolViolation`: the peer sent something that is not this protocol (a garbage frame, a bad
 *   envelope, a result that does not match its schema). A broken frame closes the connection;
 *   a single bad result fails only its own call;
 * - `FrameTooLarge`: a frame exceeded the maximum size (received: the connection closes; sent:
 *   only that call fails);
 * - `Timeout`: no answer in time (the handshake, or a call given a `timeout`);
 * - `Remote`: the server answered with a JSON-RPC error; `code` is one of `ErrorCode`.
 */
export class SdkError extends Schema.TaggedError<SdkError>()("SdkError", {
  reason: SdkErrorReason,
  message: Schema.String,
  /** The JSON-RPC error code, for `Remote`. */
  code: Schema.optional(Schema.Number),
  /** The JSON-RPC error's `data`, for `Remote`. */
  data: Schema.optional(Schema.Unknown)
}) {}

export const sdkError = (reason: SdkErrorReason, message: string): SdkError => new SdkError({ reason, message })
