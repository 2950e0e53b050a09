import type { SessionHandle } from "@dsh/session"
import type { SubagentsShape } from "@dsh/subagent"
import { Effect, Schedule } from "effect"

/** `state.json` key where `dsh subagents stop` (another process) asks the owner to stop children. */
export const STOP_REQUESTS_KEY = "stopRequests"

export const readStopRequests = (state: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const value = state[STOP_REQUESTS_KEY]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []
}

/**
 * The owner side of cross-process stop: the process running a session's children looks at
 * the session's stop requests a few times a second and stops what it holds (with all
 * descendants), then clears the requests it served. A file-store session has no other way
 * to reach a process; a database store can replace this with a notification.
 */
export const watchStopRequests = (session: SessionHandle, subagents: SubagentsShape) =>
  Effect.gen(function*() {
    const state = yield* session.readState
    const requests = readStopRequests(state)
    if (requests.length === 0) return
    const held = new Set(subagents.tree.activations.handles())
    const mine = requests.filter((h) => h === "all" || held.has(h))
    if (mine.length === 0) return
    for (const handle of mine) yield* subagents.stop(handle, "user").pipe(Effect.ignore)
    yield* session.updateState((s) => ({ ...s, [STOP_REQUESTS_KEY]: readStopRequests(s).filter((h) => !mine.includes(h)) }))
  }).pipe(Effect.ignore, Effect.repeat(Schedule.spaced("250 millis")), Effect.asVoid)
