import type { SessionError, SessionHandle, SessionState } from "@dsh/session"
import { Clock, type Duration, Effect, Option, Stream } from "effect"
import { decodeDescriptors, type SubagentDescriptor } from "./Records.ts"

/** `state.json` key where another process asks the session's owner to stop children. */
export const STOP_REQUESTS_KEY = "stopRequests"

const LIVE = new Set(["queued", "running"])

const readStopRequests = (state: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const value = state[STOP_REQUESTS_KEY]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []
}

/**
 * The owner side of cross-process stop: while a tree runs, it follows the session's state
 * (`watchState`: pushed by a database store, polled by the file store), stops what it runs of
 * each request (`all` or a handle, with descendants; `stop` returns once their outcomes are
 * recorded) and then clears the request: that is the requester's answer.
 */
export const serveStopRequests = (
  session: SessionHandle,
  stop: (handle: string) => Effect.Effect<unknown>
): Effect.Effect<void, SessionError> =>
  session.watchState.pipe(
    Stream.runForEach((state) =>
      Effect.gen(function*() {
        const requests = readStopRequests(state)
        if (requests.length === 0) return
        for (const handle of requests) yield* stop(handle)
        yield* session.updateState((s) => ({ ...s, [STOP_REQUESTS_KEY]: readStopRequests(s).filter((h) => !requests.includes(h)) }))
      })
    )
  )

/** A stopped child as the requester sees it. */
export interface StoppedChild {
  readonly name: string
  readonly status: SubagentDescriptor["status"]
}

/**
 * The requester side (`dsh subagents stop`, the SDK's `children.stop`, any harness): asks
 * the process that runs the session to stop `handle` (or `all`) and its descendants, and
 * waits (up to `timeout`) for its answer. Children still recorded as running after the answer,
 * or when no process answers, are run by none: they are recorded as `lost`, which is what they
 * are. Returns the children that were running, with their status now.
 */
export const requestStop = (
  session: SessionHandle,
  handle: string,
  options: { readonly timeout?: Duration.Input | undefined } = {}
): Effect.Effect<ReadonlyArray<StoppedChild>, SessionError> =>
  Effect.gen(function*() {
    const children = decodeDescriptors(yield* session.readState).records
    const reach = (d: SubagentDescriptor): boolean => {
      if (handle === "all" || d.handle === handle) return true
      const up = children.find((p) => p.handle === d.parent)
      return up !== undefined && reach(up)
    }
    const running = children.filter((d) => reach(d) && LIVE.has(d.status)).map((d) => d.handle)
    if (running.length === 0) return []
    const stillLive = (state: SessionState) =>
      decodeDescriptors(state).records.filter((d) => running.includes(d.handle) && LIVE.has(d.status))
    yield* session.updateState((s) => ({ ...s, [STOP_REQUESTS_KEY]: [...readStopRequests(s), handle] }))
    // Answered when the owner cleared the request (or everything stopped by itself).
    const answered = yield* session.watchState.pipe(
      Stream.filter((s) => !readStopRequests(s).includes(handle) || stillLive(s).length === 0),
      Stream.runHead,
      Effect.timeoutOption(options.timeout ?? "10 seconds")
    )
    const unanswered = Option.isNone(answered) || Option.flatten(answered).pipe(Option.map((s) => stillLive(s).length > 0), Option.getOrElse(() => true))
    if (unanswered) {
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      yield* session.updateState((s) => {
        const subagents = { ...(s.subagents as Record<string, unknown>) }
        for (const d of stillLive(s)) subagents[d.handle] = { ...d, status: "lost", updatedAt: at }
        return { ...s, subagents, [STOP_REQUESTS_KEY]: readStopRequests(s).filter((h) => h !== handle) }
      })
    }
    return decodeDescriptors(yield* session.readState).records
      .filter((d) => running.includes(d.handle))
      .map((d) => ({ name: d.handle, status: d.status }))
  })
