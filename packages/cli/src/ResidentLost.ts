// A start served by a resident's spare whose resident was killed under it: the run ends as a
// failed one (its summary says why) and its session is left `lost`, as a killed dsh leaves it.
// A module of its own: the spare and `Cli.ts` share it (the spare cannot import `Cli.ts`, whose
// evaluation is the whole run).

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
