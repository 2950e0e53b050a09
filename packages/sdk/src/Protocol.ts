import { Version } from "@dsh/core"
import { Schema } from "effect"

/**
 * The JSON-RPC 2.0 layer of the dsh SDK protocol (see PROTOCOL.md): envelopes, error codes
 * and the protocol version. The methods and their payloads are in `Methods.ts`.
 */

/** Bumped on any incompatible change; `initialize` refuses other versions with `Unsupported`. */
export const PROTOCOL_VERSION = 1

/** The version of this implementation, reported in `initialize` as the server's version (the dsh release). */
export const DSH_SDK_VERSION: string = Version.VERSION

/** JSON-RPC's own codes, then dsh's (in the implementation-defined range). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  NotFound: -32001,
  Busy: -32002,
  Cancelled: -32003,
  Unsupported: -32004,
  FrameTooLarge: -32005,
  NotInitialized: -32006
} as const
export type ErrorCodeName = keyof typeof ErrorCode

/** The name of a code, for messages (`-32002` → `Busy`). */
export const errorCodeName = (code: number): string =>
  (Object.entries(ErrorCode).find(([, c]) => c === code)?.[0]) ?? `code ${code}`

export const RequestId = Schema.Union([Schema.Number, Schema.String])
export type RequestId = typeof RequestId.Type

const JsonRpc = Schema.Literal("2.0")

export const RequestEnvelope = Schema.Struct({
  jsonrpc: JsonRpc,
  id: RequestId,
  method: Schema.String,
  params: Schema.optional(Schema.Unknown)
})

export const NotificationEnvelope = Schema.Struct({
  jsonrpc: JsonRpc,
  method: Schema.String,
  params: Schema.optional(Schema.Unknown)
})

export const ErrorObject = Schema.Struct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
})
export type ErrorObject = typeof ErrorObject.Type

export const ErrorEnvelope = Schema.Struct({
  jsonrpc: JsonRpc,
  id: Schema.NullOr(RequestId),
  error: ErrorObject
})

export const ResultEnvelope = Schema.Struct({
  jsonrpc: JsonRpc,
  id: RequestId,
  result: Schema.Unknown
})

/** A decoded message, tagged by kind. */
export type Envelope =
  | { readonly _tag: "Request"; readonly message: typeof RequestEnvelope.Type }
  | { readonly _tag: "Notification"; readonly message: typeof NotificationEnvelope.Type }
  | { readonly _tag: "Error"; readonly message: typeof ErrorEnvelope.Type }
  | { readonly _tag: "Result"; readonly message: typeof ResultEnvelope.Type }

const decodeRequest = Schema.decodeUnknownResult(RequestEnvelope)
const decodeNotification = Schema.decodeUnknownResult(NotificationEnvelope)
const decodeError = Schema.decodeUnknownResult(ErrorEnvelope)
const decodeResult = Schema.decodeUnknownResult(ResultEnvelope)

/**
 * Classifies a parsed frame. Unknown keys are ignored, so the order decides: a request
 * (`id` + `method`) before a notification (`method` only), an error before a result.
 * Undefined when the value is none of the four.
 */
export const decodeEnvelope = (json: unknown): Envelope | undefined => {
  if (typeof json !== "object" || json === null) return undefined
  if ("method" in json) {
    if ("id" in json) {
      const r = decodeRequest(json)
      return r._tag === "Success" ? { _tag: "Request", message: r.success } : undefined
    }
    const n = decodeNotification(json)
    return n._tag === "Success" ? { _tag: "Notification", message: n.success } : undefined
  }
  if ("error" in json) {
    const e = decodeError(json)
    return e._tag === "Success" ? { _tag: "Error", message: e.success } : undefined
  }
  const r = decodeResult(json)
  return r._tag === "Success" ? { _tag: "Result", message: r.success } : undefined
}

/** The request id of a message that failed to decode, when one can be read (for the error reply). */
export const salvageId = (json: unknown): RequestId | null => {
  if (typeof json !== "object" || json === null || !("id" in json)) return null
  const id = json.id
  return typeof id === "number" || typeof id === "string" ? id : null
}
