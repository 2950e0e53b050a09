import type { Events } from "@dsh/core"
import { Effect } from "effect"
import { ErrorCode, type RequestId } from "../Protocol.ts"
import { type Reply, reply } from "./ServerReply.ts"
import type { Transport } from "./Transport.ts"

export interface Outbound {
  /** Sends a frame; a failure to send is only logged (the client is gone). */
  readonly send: (message: unknown) => Effect.Effect<void>
  readonly respond: (id: RequestId, result: unknown) => Effect.Effect<void>
  readonly fail: (id: RequestId | null, r: Reply) => Effect.Effect<void>
  /** Streams one event; an event too large for a frame becomes a notice instead of vanishing. */
  readonly notify: (sessionId: string, handle: string | undefined, event: Events.AgentEvent) => Effect.Effect<void>
}

/** What the server writes to the client: answers, errors and streamed events. */
export const makeOutbound = (transport: Transport): Outbound => {
  const send = (message: unknown) => transport.send(message).pipe(Effect.ignore({ log: "Debug" }))
  const fail = (id: RequestId | null, r: Reply) =>
    send({ jsonrpc: "2.0", id, error: { code: r.code, message: r.message, ...(r.data === undefined ? {} : { data: r.data }) } })
  const respond = (id: RequestId, result: unknown) =>
    transport.send({ jsonrpc: "2.0", id, result }).pipe(
      // A result too large for a frame is still answered: with an error the client can read.
      Effect.catchIf((e) => e.reason === "FrameTooLarge", (e) => fail(id, reply(ErrorCode.Internal, `the result is too large to send: ${e.message}`))),
      Effect.ignore({ log: "Debug" })
    )
  const notify = (sessionId: string, handle: string | undefined, event: Events.AgentEvent): Effect.Effect<void> => {
    const params = handle === undefined ? { sessionId, event } : { sessionId, handle, event }
    return transport.send({ jsonrpc: "2.0", method: "session.event", params }).pipe(
      Effect.catchIf((e) => e.reason === "FrameTooLarge", () =>
        send({
          jsonrpc: "2.0",
          method: "session.event",
          params: { ...params, event: { type: "notice", level: "warning", message: `a ${event.type} event was too large to stream and was dropped` } }
        })),
      Effect.ignore({ log: "Debug" })
    )
  }
  return { send, respond, fail, notify }
}
