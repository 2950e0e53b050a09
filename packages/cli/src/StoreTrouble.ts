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

export class StoreTrouble extends Context.Service<StoreTrouble, StoreTroubleShape>()("@dsh/cli/StoreTrouble") {}

/** A fresh record (one per command run). */
export const makeStoreTrouble = (): StoreTroubleShape => {
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
