import { Schema } from "effect"

/** The version of the continuation envelope this backend writes and reads. */
export const CONTINUATION_VERSION = 1

/**
 * What the backend keeps in a child's descriptor to continue it later: the id of the child's
 * own session (in its `DSH_HOME`, the parent's `agents/<handle>/`). The subagent service stores
 * it opaquely; only this backend reads it, through this schema.
 */
export const DshSdkContinuation = Schema.Struct({ sessionId: Schema.String })
export type DshSdkContinuation = typeof DshSdkContinuation.Type
