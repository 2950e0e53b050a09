import { Cause, Context, Predicate } from "effect"

/**
 * What went wrong with the session store during a command (a full disk, PostgreSQL gone):
 * the logger records each failure in the log file and notes it here instead of printing it,
 * so that a failing store is one line on stderr (the command's own, naming the store and the
 * first cause), not a warning per write.
 */
export interface StoreTroubleShape {
  /** Records one store failure (its log line and its cause). */
  readonly note: (line: string, cause: string) => void
  /** The first failure's cause, if there was one. */
  readonly first: () => string | undefined
  /** How many were noted. */
  readonly count: () => number
}

export class StoreTrouble extends Context.Service<StoreTrouble, StoreTroubleShape>()("@dsh/session/StoreTrouble") {}

/** A fresh record (one per command run). */
export const make = (): StoreTroubleShape => {
  let first: string | undefined
  let count = 0
  return {
    note: (_line, cause) => {
      first ??= cause
      count++
    },
    first: () => first,
    count: () => count
  }
}

/** The store's failure in a logged cause (a `SessionError`), as its one-line message. */
export const storeFailureOf = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : undefined
    if (Predicate.isTagged(error, "SessionError") && Predicate.hasProperty(error, "message") && Predicate.isString(error.message)) {
      return error.message.split("\n")[0] ?? error.message
    }
  }
  return undefined
}

/**
 * A logger's `divert` (see `@dsh/telemetry`'s `fileLogLayer`): a logged store failure is noted
 * in `trouble` and kept off stderr; anything else goes on as usual.
 */
export const divertStoreFailures = (trouble: StoreTroubleShape) => (line: string, cause: Cause.Cause<unknown>): boolean => {
  const failure = storeFailureOf(cause)
  if (failure === undefined) return false
  trouble.note(line, failure)
  return true
}

// The first words of the store going away, whichever part of the process notices it first:
// a session's listener (`@dsh/session-pg`) or the cluster lane's (`@dsh/subagent-cluster`).
const STORE_DOWN = ["cannot reach PostgreSQL", "the lane no longer hears releases"]

/**
 * Which warnings may still reach stderr (a `StderrWarnings` of `@dsh/telemetry`): none from the
 * first that says the store cannot be reached, since they are consequences of the one line the
 * run's failure prints.
 */
export const quietOnceStoreDown = (): ((line: string) => boolean) => {
  let down = false
  return (line) => !(down ||= STORE_DOWN.some((start) => line.startsWith(start)))
}
