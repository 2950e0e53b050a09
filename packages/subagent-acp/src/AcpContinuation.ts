import { Schema } from "effect"

/** The version of `AcpContinuation` this package writes and reads. */
export const ACP_CONTINUATION_VERSION = 1

/**
 * What a continuable ACP child saves (in its descriptor, as the service's versioned envelope):
 * the agent's own session id, and whether the agent advertised `loadSession` — a child whose
 * agent did not can only be continued while its process is kept warm.
 */
export const AcpContinuation = Schema.Struct({
  sessionId: Schema.String,
  loadSession: Schema.Boolean
})
export type AcpContinuation = typeof AcpContinuation.Type
