import { AgentHost } from "@dsh/agent"
import { Usage } from "@dsh/core"
import type { SessionError, SessionStore } from "@dsh/session"
import { Detach, Records, SessionRequests } from "@dsh/subagent"
import { Effect, Option, Struct } from "effect"
import { childSummary } from "../ChildSummary.ts"
import { toHostError } from "../HostErrors.ts"
import { governed } from "./permissions.ts"
import { asLost, type RunningSessions } from "./sessions.ts"

const replyOf = (handle: string, outcome: { readonly _tag: "Replied"; readonly result: Records.SubagentResult } | { readonly _tag: "Queued" | "Accepted" }): AgentHost.HostChildReply => {
  if (outcome._tag !== "Replied") return { handle, status: "queued", result: "", usage: Usage.emptyUsage, notes: `${handle} is running: it gets the message at its next step` }
  return { ...Struct.pick(outcome.result, ["handle", "status", "usage", "cost", "notes"]), result: outcome.result.output }
}

/** The host's calls on a session's children: here when this process runs it, through its owner otherwise. */
export const makeChildCalls = (
  store: SessionStore.SessionStoreShape,
  sessions: RunningSessions
): Pick<AgentHost.AgentHostShape, "listChildren" | "sendToChild" | "stopChild" | "detachChild"> => {
  const { settled } = sessions

  /** Here when this process runs the session or nobody does; through the owner otherwise. */
  const sendToChild: AgentHost.AgentHostShape["sendToChild"] = (send) =>
    toHostError(Effect.scoped(Effect.gen(function*() {
      const local = yield* sessions.openRuntime(send.sessionId, send.onChildEvent).pipe(
        Effect.map(Option.some),
        Effect.catchIf((e): e is SessionError.SessionError => e._tag === "SessionError" && e.reason === "Owned", () => Effect.succeed(Option.none()))
      )
      if (Option.isSome(local)) {
        return replyOf(send.handle, yield* governed(local.value, local.value.main.subagents.send(send.handle, send.message, "user")))
      }
      const routed = yield* settled(send.sessionId, store.open(send.sessionId).pipe(
        Effect.flatMap((session) => SessionRequests.requestSend(session, send.handle, send.message)),
        Effect.mapError((e) => (typeof e === "string" ? new AgentHost.HostError({ reason: "Failed", message: e }) : e))
      ))
      return replyOf(send.handle, routed)
    }))).pipe(Effect.withSpan("AgentHost.sendToChild", { attributes: { sessionId: send.sessionId, handle: send.handle } }))

  return {
    listChildren: (sessionId) =>
      toHostError(settled(sessionId, Effect.gen(function*() {
        const { session, orphaned } = yield* sessions.withOwner(sessionId)
        const decoded = Records.decodeDescriptors(yield* session.readState)
        yield* Records.logWarnings(decoded.warnings)
        return decoded.records.map((d) => asLost(orphaned, childSummary(d)))
      }))),
    sendToChild,
    stopChild: (stop) =>
      toHostError(Effect.gen(function*() {
        // This process runs the session: stop here, no round trip.
        const mine = sessions.runtimeOf(stop.sessionId)
        if (mine !== undefined) {
          const { tree } = mine
          // Another session's handle (or a typo) is named as such, with this session's children.
          if (stop.handle !== "all" && tree.descriptors.get(stop.handle) === undefined) {
            const known = tree.descriptors.all().map((d) => d.handle)
            return yield* new AgentHost.HostError({ reason: "NotFound", message: `no child is named "${stop.handle}"; yours: ${known.join(", ") || "(none)"}` })
          }
          return yield* tree.stopHeld(stop.handle, "user")
        }
        return yield* settled(stop.sessionId, Effect.gen(function*() {
          const session = yield* store.open(stop.sessionId)
          return (yield* SessionRequests.requestStop(session, stop.handle)).map((s) => s.name)
        }))
      })).pipe(Effect.withSpan("AgentHost.stopChild", { attributes: { sessionId: stop.sessionId, handle: stop.handle } })),
    detachChild: (detach) =>
      toHostError(Effect.gen(function*() {
        // Only the process whose call waits for the child can let it go of it.
        const mine = sessions.runtimeOf(detach.sessionId)
        if (mine === undefined) {
          return yield* new AgentHost.HostError({ reason: "NotFound", message: `session ${detach.sessionId} is not running in this process; nothing to detach` })
        }
        return (yield* Detach.detachChild(mine.tree, detach.handle, "user")).map((r) => r.handle)
      })).pipe(Effect.withSpan("AgentHost.detachChild", { attributes: { sessionId: detach.sessionId, handle: detach.handle } }))
  }
}
