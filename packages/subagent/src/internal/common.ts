import { Clock, Effect } from "effect"
import { SubagentError } from "../SubagentError.ts"

/** The current time as an ISO string (records and announcements carry it). */
export const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** A typed refusal: the caller (a model, through its tool) reads the message. */
export const refuse = (reason: SubagentError["reason"], message: string) => Effect.fail(new SubagentError({ reason, message }))
