import type { SessionError, SessionStore } from "@dsh/session"
import { Clock, type Duration, Effect, Option, Schedule, Schema, Stream } from "effect"
import { markMetaLost } from "./internal/childMeta.ts"
import { decodeDescriptors, type SubagentDescriptor, type SubagentResult, TaskRecord } from "./Records.ts"

/**
 * Requests from other processes to the one that runs a session (its lease holder), carried by
 * the session store: a requester appends to `state.json` → `requests`; the owner, following the
 * state (`watchState`: pushed by a database store, polled by the file store), takes each
 * request (removing it is its answer) and, for a `send`, writes the reply as the task record
 * `tasks/<request id>.json`. One process runs a session's children, so every stop and every
 * message reaches the one Activation a child can have.
 */
export const REQUESTS_KEY = "requests"

export const SessionRequest = Schema.Union([
  Schema.Struct({ id: Schema.String, kind: Schema.Literal("stop"), handle: Schema.String }),
  Schema.Struct({ id: Schema.String, kind: Schema.Literal("send"), handle: Schema.String, message: Schema.String })
])
export type SessionRequest = typeof SessionRequest.Type

const decodeRequest = Schema.decodeUnknownResult(SessionRequest)
const decodeTask = Schema.decodeUnknownResult(TaskRecord)

const readRequests = (state: Readonly<Record<string, unknown>>): ReadonlyArray<SessionRequest> => {
  const value = state[REQUESTS_KEY]
  return Array.isArray(value) ? value.flatMap((v) => { const r = decodeRequest(v); return r._tag === "Success" ? [r.success] : [] }) : []
}

const withoutRequests = (ids: ReadonlyArray<string>) => (s: SessionStore.SessionState): SessionStore.SessionState => ({
  ...s,
  [REQUESTS_KEY]: (Array.isArray(s[REQUESTS_KEY]) ? (s[REQUESTS_KEY] as ReadonlyArray<{ readonly id?: unknown }>) : []).filter((r) => !ids.includes(String(r.id)))
})

const LIVE = new Set(["queued", "running"])
const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
const requestId = Effect.map(Clock.currentTimeMillis, (ms) => `req-${ms.toString(36)}-${Math.random().toString(36).slice(2, 10)}`)

/** How the owner carries out requests. */
export interface RequestHandlers {
  /** Stops `handle` (or `all`) and its descendants; returns once their outcomes are recorded. */
  readonly stop: (handle: string) => Effect.Effect<unknown>
  /** Continues a child; its result, or undefined when the message was queued for a running child. */
  readonly send: (handle: string, message: string) => Effect.Effect<SubagentResult | undefined, string>
}

/**
 * The owner side, for as long as it runs the session: takes every request it sees, once. A
 * stop is done before its answer; a send is answered at once (it is taken) and carried out
 * meanwhile, its reply written when the child has answered.
 */
export const serveRequests = (session: SessionStore.SessionHandle, handlers: Effect.Effect<RequestHandlers>): Effect.Effect<void, SessionError.SessionError> =>
  Effect.gen(function*() {
    const taken = new Set<string>()
    /** A routed send's reply: the child's result; none while queued (`running`); a refusal as a failed result. */
    const reply = (request: SessionRequest & { readonly kind: "send" }, outcome: SubagentResult | string | undefined) =>
      Effect.gen(function*() {
        const at = yield* isoNow
        const result: SubagentResult | undefined = typeof outcome === "string"
          ? { status: "failed", output: "", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, notes: outcome, handle: request.handle, runId: request.id, agent: "", provider: "", durationMs: 0 }
          : outcome
        yield* session.writeTask(request.id, {
          runId: request.id,
          handle: request.handle,
          agent: result?.agent ?? "",
          parent: "user",
          status: result?.status ?? "running",
          createdAt: at,
          endedAt: at,
          ...(result === undefined ? {} : { result }),
          delivered: true
        } satisfies TaskRecord)
      })
    yield* session.watchState.pipe(Stream.runForEach((state) =>
      Effect.gen(function*() {
        const fresh = readRequests(state).filter((r) => !taken.has(r.id))
        if (fresh.length === 0) return
        for (const r of fresh) taken.add(r.id)
        const { stop, send } = yield* handlers
        for (const r of fresh) {
          if (r.kind === "stop") yield* stop(r.handle)
          else yield* Effect.forkDetach(send(r.handle, r.message).pipe(Effect.result, Effect.flatMap((o) => reply(r, o._tag === "Success" ? o.success : o.failure)), Effect.ignore({ log: "Warn", message: `could not answer the request ${r.id}` })))
        }
        yield* session.updateState(withoutRequests(fresh.map((r) => r.id)))
      })
    ))
  })

/** A stopped child as the requester sees it. */
export interface StoppedChild {
  readonly name: string
  readonly status: SubagentDescriptor["status"]
}

/** Whether the session has a live owner (its lease holder). */
const owned = (session: SessionStore.SessionHandle) => Effect.map(session.owner, (o) => o !== undefined)

/**
 * Stops `handle` (or `all`) and its descendants from outside the process that runs them: asks
 * the owner and waits (up to `timeout`) for its answer. Children still recorded as running once
 * it answered — or all of them when no process owns the session, or the owner does not answer —
 * are run by none: they are recorded `lost`, which is what they are. Returns the children that
 * were running, with their status now.
 */
export const requestStop = (
  session: SessionStore.SessionHandle,
  handle: string,
  options: { readonly timeout?: Duration.Input | undefined } = {}
): Effect.Effect<ReadonlyArray<StoppedChild>, SessionError.SessionError> =>
  Effect.gen(function*() {
    const children = decodeDescriptors(yield* session.readState).records
    const reach = (d: SubagentDescriptor): boolean => {
      if (handle === "all" || d.handle === handle) return true
      const up = children.find((p) => p.handle === d.parent)
      return up !== undefined && reach(up)
    }
    const running = children.filter((d) => reach(d) && LIVE.has(d.status)).map((d) => d.handle)
    if (running.length === 0) return []
    const stillLive = (state: SessionStore.SessionState) => decodeDescriptors(state).records.filter((d) => running.includes(d.handle) && LIVE.has(d.status))
    if (yield* owned(session)) {
      const id = yield* requestId
      yield* session.updateState((s) => ({ ...s, [REQUESTS_KEY]: [...readRequests(s), { id, kind: "stop", handle }] }))
      // Answered when the owner took the request (or everything stopped by itself).
      yield* session.watchState.pipe(
        Stream.filter((s) => !readRequests(s).some((r) => r.id === id) || stillLive(s).length === 0),
        Stream.runHead,
        Effect.timeoutOption(options.timeout ?? "10 seconds")
      )
      yield* session.updateState(withoutRequests([id]))
    }
    const at = yield* isoNow
    yield* session.updateState((s) => {
      const lost = stillLive(s)
      if (lost.length === 0) return s
      const subagents = { ...(s.subagents as Record<string, unknown>) }
      for (const d of lost) subagents[d.handle] = { ...d, status: "lost", updatedAt: at }
      return { ...s, subagents }
    })
    const after = decodeDescriptors(yield* session.readState).records.filter((d) => running.includes(d.handle))
    // Their meta.json, which no driver will finish now, agrees.
    yield* Effect.forEach(after.filter((d) => d.status === "lost"), (d) => markMetaLost(session, d.handle, at), { discard: true })
    return after.map((d) => ({ name: d.handle, status: d.status }))
  })

/** What a routed message led to. */
export type RoutedReply =
  | { readonly _tag: "Replied"; readonly result: SubagentResult }
  | { readonly _tag: "Queued" }

/**
 * Sends a message to a child of a session another process runs: the owner continues the child
 * (or queues the message for its running Activation) and replies. Waits as long as the owner
 * lives; fails when it stops before replying.
 */
export const requestSend = (session: SessionStore.SessionHandle, handle: string, message: string): Effect.Effect<RoutedReply, SessionError.SessionError | string> =>
  Effect.gen(function*() {
    const id = yield* requestId
    yield* session.updateState((s) => ({ ...s, [REQUESTS_KEY]: [...readRequests(s), { id, kind: "send", handle, message }] }))
    const answer = yield* Effect.gen(function*() {
      const record = yield* session.readTask(id)
      if (record !== undefined) return Option.some(record)
      if (!(yield* owned(session))) return yield* Effect.fail(`the process running the session stopped before ${handle} replied`)
      return Option.none<unknown>()
    }).pipe(Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: Option.isSome }))
    const decoded = decodeTask(Option.getOrUndefined(answer))
    if (decoded._tag === "Failure") return yield* Effect.fail(`the reply to ${handle} is unreadable: ${decoded.failure.message.split("\n")[0]}`)
    const task = decoded.success
    return task.result === undefined ? { _tag: "Queued" } : { _tag: "Replied", result: task.result }
  })
