import { Cause, Deferred, Effect, Fiber, Schema, type Scope } from "effect"
import { Methods, Notifications, PermissionAskParams, type PermissionAskResult, type SessionEvent } from "../Methods.ts"
import { decodeEnvelope, errorCodeName } from "../Protocol.ts"
import { SdkError, sdkError } from "../SdkError.ts"
import type { Transport } from "./Transport.ts"

type Decoder = (input: unknown) => { readonly _tag: "Success"; readonly success: unknown } | { readonly _tag: "Failure"; readonly failure: { readonly message: string } }

const resultDecoders: Readonly<Record<string, Decoder>> = Object.fromEntries(
  Object.entries(Methods).map(([method, { result }]) => [method, Schema.decodeUnknownResult(result as Schema.Codec<unknown>)])
)
const decodeSessionEvent = Schema.decodeUnknownResult(Notifications["session.event"])
const decodePermissionAsk = Schema.decodeUnknownResult(PermissionAskParams)
const decodeCancelRequest = Schema.decodeUnknownResult(Notifications["$/cancelRequest"])

const preview = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)

export interface Pending {
  readonly method: string
  readonly deferred: Deferred.Deferred<unknown, SdkError>
}

export interface Listener {
  readonly sessionId: string
  readonly onEvent: (event: SessionEvent) => Effect.Effect<void>
}

/** What the client's frame handler reads and updates; owned by `connectTransport`. */
export interface InboundDeps {
  readonly transport: Transport
  readonly scope: Scope.Scope
  readonly pending: Map<number, Pending>
  readonly listeners: Set<Listener>
  /** The server's questions being answered, by request id (a `$/cancelRequest` interrupts one). */
  readonly answering: Map<string | number, Fiber.Fiber<void>>
  readonly shutdown: (error: SdkError) => Effect.Effect<void>
  readonly onEvent?: ((event: SessionEvent) => Effect.Effect<void>) | undefined
  readonly onViolation?: ((error: SdkError) => Effect.Effect<void>) | undefined
  readonly onPermission?: ((request: PermissionAskParams) => Effect.Effect<PermissionAskResult>) | undefined
}

type Envelope = NonNullable<ReturnType<typeof decodeEnvelope>>
type Of<T extends Envelope["_tag"]> = Extract<Envelope, { readonly _tag: T }>

/** An answer to one of our calls completes it. */
const answered = (deps: InboundDeps, envelope: Of<"Result"> | Of<"Error">): Effect.Effect<void> => {
  const id = envelope.message.id
  const call = typeof id === "number" ? deps.pending.get(id) : undefined
  // Late answers to abandoned calls, and errors about frames we could not have sent, land here.
  if (call === undefined) return Effect.void
  deps.pending.delete(id as number)
  if (envelope._tag === "Error") {
    const { code, message, data } = envelope.message.error
    const error = new SdkError({ reason: "Remote", message: `${call.method}: ${message} (${errorCodeName(code)})`, code, ...(data === undefined ? {} : { data }) })
    return Effect.sync(() => Deferred.doneUnsafe(call.deferred, Effect.fail(error)))
  }
  const decoded = resultDecoders[call.method]!(envelope.message.result)
  return Effect.sync(() =>
    Deferred.doneUnsafe(
      call.deferred,
      decoded._tag === "Success"
        ? Effect.succeed(decoded.success)
        : Effect.fail(sdkError("ProtocolViolation", `${call.method}: the result does not match the protocol: ${decoded.failure.message}`))
    )
  )
}

const dispatch = (deps: InboundDeps, event: SessionEvent) =>
  Effect.gen(function*() {
    // Listener defects are bugs of the caller; they must not take the connection down.
    if (deps.onEvent !== undefined) yield* deps.onEvent(event).pipe(Effect.catchCause(() => Effect.void))
    for (const l of deps.listeners) if (l.sessionId === event.sessionId) yield* l.onEvent(event).pipe(Effect.catchCause(() => Effect.void))
  })

const notified = (deps: InboundDeps, envelope: Of<"Notification">): Effect.Effect<void> => {
  if (envelope.message.method === "$/cancelRequest") {
    const cancelled = decodeCancelRequest(envelope.message.params)
    const fiber = cancelled._tag === "Success" ? deps.answering.get(cancelled.success.id) : undefined
    return fiber === undefined ? Effect.void : Effect.asVoid(Effect.forkIn(Fiber.interrupt(fiber), deps.scope))
  }
  if (envelope.message.method !== "session.event") return Effect.void
  const decoded = decodeSessionEvent(envelope.message.params)
  if (decoded._tag === "Success") return dispatch(deps, decoded.success)
  return deps.onViolation?.(sdkError("ProtocolViolation", `a session.event does not match the protocol: ${decoded.failure.message}`)) ?? Effect.void
}

/** The server's own requests: only `permission.ask`, and only when the client answers it. */
const requested = (deps: InboundDeps, envelope: Of<"Request">): Effect.Effect<void> => {
  const { id, method } = envelope.message
  const reply = (body: { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }) =>
    deps.transport.send({ jsonrpc: "2.0", id, ...body }).pipe(Effect.ignore({ log: "Debug" }))
  if (method !== "permission.ask" || deps.onPermission === undefined) {
    return reply({ error: { code: -32601, message: `this client answers no ${method} requests` } })
  }
  const decoded = decodePermissionAsk(envelope.message.params)
  if (decoded._tag === "Failure") return reply({ error: { code: -32602, message: `invalid params for permission.ask: ${decoded.failure.message}` } })
  const onPermission = deps.onPermission
  // Answered in its own fiber: a person may take a while, and events keep flowing meanwhile.
  return Effect.forkIn(
    onPermission(decoded.success).pipe(
      Effect.matchCauseEffect({
        onSuccess: (result) => reply({ result }),
        onFailure: (cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.void : reply({ error: { code: -32603, message: `the client's permission handler failed: ${Cause.pretty(cause).split("\n")[0]}` } })
      }),
      Effect.ensuring(Effect.sync(() => deps.answering.delete(id)))
    ),
    deps.scope
  ).pipe(Effect.map((fiber) => void deps.answering.set(id, fiber)))
}

/** Handles one frame; a broken frame ends the connection (the stream cannot be trusted after it). */
export const makeOnFrame = (deps: InboundDeps) => (text: string): Effect.Effect<void> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return deps.shutdown(sdkError("ProtocolViolation", `the server sent a frame that is not JSON: ${preview(text)}`))
  }
  const envelope = decodeEnvelope(json)
  if (envelope === undefined) return deps.shutdown(sdkError("ProtocolViolation", `the server sent something that is not JSON-RPC 2.0: ${preview(text)}`))
  switch (envelope._tag) {
    case "Result":
    case "Error":
      return answered(deps, envelope)
    case "Notification":
      return notified(deps, envelope)
    case "Request":
      return requested(deps, envelope)
  }
}
