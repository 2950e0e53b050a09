import * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events } from "@dsh/core"
import { Effect } from "effect"
import { acpUsage, childStopReason, makeUpdateMapper } from "./Updates.ts"

/** What the client said it understands, as far as the reporter cares. */
export interface ClientFeatures {
  /** `clientCapabilities.subagents`: child sessions may be announced with `subagent_update`. */
  readonly subagents: boolean
  /** `clientCapabilities.session.notices`: `notice` updates may be sent. */
  readonly notices: boolean
}

/** The child session id of a subagent: opaque to clients, unique per parent session. */
export const childSessionId = (sessionId: string, handle: string): string => `${sessionId}/${handle}`

interface OpenCall {
  readonly id: string
  readonly name: string
  asked: boolean
}

/**
 * Turns one prompt's events (the main agent's and every descendant's) into `session/update`
 * notifications, in order: each notification is awaited before the next event is handled, so
 * the client sees them before the prompt's response. It also remembers open tool calls, so a
 * permission request can name the tool call it is about.
 */
export const makeReporter = (options: {
  readonly client: acp.AgentContext
  readonly sessionId: string
  readonly cwd: string
  readonly features: ClientFeatures
  readonly contextWindow?: number | undefined
}) => {
  const { client, sessionId, cwd, features } = options
  const mainMapper = makeUpdateMapper("live", cwd, options.contextWindow)
  const childMappers = new Map<string, ReturnType<typeof makeUpdateMapper>>()
  const announced = new Set<string>()
  const open = new Map<string, Array<OpenCall>>()

  const send = (target: string, update: acp.SessionUpdate): Effect.Effect<void> =>
    Effect.tryPromise(() => client.notify(acp.methods.client.session.update, { sessionId: target, update })).pipe(Effect.ignore({ log: "Debug" }))

  const track = (agent: string, event: Events.AgentEvent) => {
    if (event.type === "tool-call") {
      const calls = open.get(agent) ?? []
      calls.push({ id: event.id, name: event.name, asked: false })
      open.set(agent, calls)
    } else if (event.type === "tool-result") {
      open.set(agent, (open.get(agent) ?? []).filter((c) => c.id !== event.id))
    }
  }

  /** Announces a child on its parent's session before any of its own traffic. */
  const announce = (handle: string, parentSession: string, title: string, description?: string) =>
    Effect.suspend(() => {
      if (!features.subagents || announced.has(handle)) return Effect.void
      announced.add(handle)
      return send(parentSession, {
        sessionUpdate: "subagent_update",
        sessionId: childSessionId(sessionId, handle),
        title,
        ...(description === undefined ? {} : { description }),
        state: { state: "running" }
      })
    })

  /** Subagent lifecycle and notices, emitted by the agent whose session is `own`. */
  const lifecycle = (own: string, event: Events.AgentEvent): Effect.Effect<boolean> => {
    switch (event.type) {
      case "subagent-start":
        return announce(event.handle, own, `${event.handle} (${event.agent})`, event.description).pipe(Effect.as(true))
      case "subagent-end":
        return (features.subagents
          ? send(own, {
            sessionUpdate: "subagent_update",
            sessionId: childSessionId(sessionId, event.handle),
            state: { state: "idle", ...childStopReason(event.status), usage: acpUsage(event.usage) }
          })
          : Effect.void).pipe(Effect.as(true))
      case "notice":
        return (features.notices
          ? send(own, { sessionUpdate: "notice", severity: event.level, title: event.message })
          : Effect.void).pipe(Effect.as(true))
      default:
        return Effect.succeed(false)
    }
  }

  const main = (event: Events.AgentEvent): Effect.Effect<void> =>
    Effect.gen(function*() {
      track("main", event)
      if (yield* lifecycle(sessionId, event)) return
      for (const update of mainMapper(event)) yield* send(sessionId, update)
    })

  const child = (handle: string, event: Events.AgentEvent): Effect.Effect<void> =>
    Effect.gen(function*() {
      track(handle, event)
      if (!features.subagents) return
      // A grandchild's start is not always reported to us: announce late rather than never.
      yield* announce(handle, sessionId, handle)
      const own = childSessionId(sessionId, handle)
      if (yield* lifecycle(own, event)) return
      let mapper = childMappers.get(handle)
      if (mapper === undefined) {
        mapper = makeUpdateMapper("child", cwd, options.contextWindow)
        childMappers.set(handle, mapper)
      }
      for (const update of mapper(event)) yield* send(own, update)
    })

  /** The oldest open, not yet asked-about call of `tool` by `agent`: the one asking for permission. */
  const takeCall = (agent: string, tool: string): string | undefined => {
    const call = (open.get(agent) ?? []).find((c) => c.name === tool && !c.asked)
    if (call === undefined) return undefined
    call.asked = true
    return call.id
  }

  /** The session a permission request of `agent` belongs on: its own when the client knows children. */
  const sessionOf = (agent: string): string =>
    agent === "main" || !features.subagents || !announced.has(agent) ? sessionId : childSessionId(sessionId, agent)

  return { main, child, takeCall, sessionOf }
}

export type Reporter = ReturnType<typeof makeReporter>

/** Replays persisted records of a session as updates (`session/load`). */
export const replayRecords = (options: {
  readonly client: acp.AgentContext
  readonly sessionId: string
  readonly cwd: string
  readonly features: ClientFeatures
  readonly records: ReadonlyArray<Events.AgentEvent>
}): Effect.Effect<void> =>
  Effect.gen(function*() {
    const mapper = makeUpdateMapper("replay", options.cwd)
    const reporter = makeReporter({ ...options })
    for (const record of options.records) {
      if (record.type === "subagent-start" || record.type === "subagent-end" || record.type === "notice") {
        if (record.type !== "notice") yield* reporter.main(record)
        continue
      }
      for (const update of mapper(record)) {
        yield* Effect.tryPromise(() =>
          options.client.notify(acp.methods.client.session.update, { sessionId: options.sessionId, update })
        ).pipe(Effect.ignore({ log: "Debug" }))
      }
    }
  })
