import { type Duration, Effect, Schedule, Stream } from "effect"
import type { SessionError } from "../SessionError.ts"
import type { SessionState } from "../SessionStore.ts"

/**
 * A state stream for stores that cannot push: `probe` is cheap (a file's stat, an object's
 * identity) and runs every `interval`; `read` runs, and its state is emitted, only when the
 * probe's answer changes (`===`). The first state is emitted at once.
 */
export const pollState = <K>(
  probe: Effect.Effect<K, SessionError>,
  read: Effect.Effect<SessionState, SessionError>,
  interval: Duration.Input
): Stream.Stream<SessionState, SessionError> =>
  Stream.fromEffectSchedule(probe, Schedule.spaced(interval)).pipe(
    Stream.changesWith((a, b) => a === b),
    Stream.mapEffect(() => read)
  )
