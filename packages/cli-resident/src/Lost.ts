// A start served by a resident's spare whose resident was killed under it: the run ends as a
// failed one (its summary says why). A module of its own: the spare and the CLI's entry share it
// (the spare cannot import the entry, whose evaluation is the whole run). One per process.

let reason: string | undefined
const listeners: Array<() => void> = []

/** Called by the spare when its resident went away mid-start. */
export const residentLost = (why: string): void => {
  if (reason !== undefined) return
  reason = why
  for (const listener of listeners.splice(0)) listener()
}

/** Why this start's resident went away, if it did. */
export const residentLostReason = (): string | undefined => reason

/** Calls `listener` once the resident is gone (at once if it is already). */
export const onResidentLost = (listener: () => void): void => {
  if (reason !== undefined) listener()
  else listeners.push(listener)
}
