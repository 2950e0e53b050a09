import type { SessionHandle } from "@dsh/session"
import type { SubagentDescriptor, SubagentsShape } from "@dsh/subagent"
import { Effect, Schedule } from "effect"
import { descriptorsOf } from "./Children.ts"

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

const LIVE = new Set(["queued", "running"])

/**
 * The requester side (`dsh subagents stop`, the SDK's `children.stop`): asks whichever process
 * holds the children to stop `handle` (or `all`) and its descendants, and waits (bounded) until
 * they are stopped. If no process answers, none holds them any more: they are recorded as
 * `lost`, which is what they are. Returns the children that were running, with their status.
 */
export const requestStop = (session: SessionHandle, handle: string) =>
  Effect.gen(function*() {
    const children = descriptorsOf(yield* session.readState)
    const reach = (d: SubagentDescriptor): boolean => {
      if (handle === "all" || d.handle === handle) return true
      const up = children.find((p) => p.handle === d.parent)
      return up !== undefined && reach(up)
    }
    const running = children.filter((d) => reach(d) && LIVE.has(d.status)).map((d) => d.handle)
    if (running.length === 0) return []
    yield* session.updateState((s) => ({ ...s, [STOP_REQUESTS_KEY]: [...readStopRequests(s), handle] }))
    const stillLive = Effect.map(session.readState, (s) => descriptorsOf(s).filter((d) => running.includes(d.handle) && LIVE.has(d.status)))
    const live = yield* stillLive.pipe(Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: (xs) => xs.length === 0, times: 100 }))
    if (live.length > 0) {
      const at = new Date().toISOString()
      yield* session.updateState((s) => {
        const subagents = { ...(s.subagents as Record<string, SubagentDescriptor>) }
        for (const d of live) subagents[d.handle] = { ...d, status: "lost", updatedAt: at }
        return { ...s, subagents, [STOP_REQUESTS_KEY]: readStopRequests(s).filter((h) => h !== handle) }
      })
    }
    return descriptorsOf(yield* session.readState).filter((d) => running.includes(d.handle)).map((d) => ({ name: d.handle, status: d.status }))
  })
