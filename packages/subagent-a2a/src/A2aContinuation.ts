import { Schema } from "effect"

/** The version of `A2aContinuation` this package writes and reads. */
export const A2A_CONTINUATION_VERSION = 1

/**
 * What a continuable A2A child saves: the conversation's `contextId` (a later message continues
 * it, warm or after a restart: the remote agent holds the state), and the last task when it
 * ended waiting for input (the next message answers that task).
 */
export const A2aContinuation = Schema.Struct({
  contextId: Schema.String,
  taskId: Schema.optional(Schema.String)
})
export type A2aContinuation = typeof A2aContinuation.Type
