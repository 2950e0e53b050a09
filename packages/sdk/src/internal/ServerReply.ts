import type { AgentHost } from "@dsh/agent"
import { Effect, Schema } from "effect"
import { type MethodName, Methods, type ParamsOf } from "../Methods.ts"
import { ErrorCode } from "../Protocol.ts"

/** A JSON-RPC error to answer with. */
export class Reply extends Schema.TaggedError<Reply>()("Reply", {
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {}

export const reply = (code: number, message: string, data?: unknown): Reply =>
  new Reply(data === undefined ? { code, message } : { code, message, data })

export const hostReply = (e: AgentHost.HostError): Reply =>
  reply(
    e.reason === "NotFound" ? ErrorCode.NotFound
      : e.reason === "InvalidInput" ? ErrorCode.InvalidParams
      : e.reason === "Unsupported" ? ErrorCode.Unsupported
      : e.reason === "Busy" ? ErrorCode.Busy
      : ErrorCode.Internal,
    e.message
  )

export const fromHost = <A>(effect: Effect.Effect<A, AgentHost.HostError>): Effect.Effect<A, Reply> => Effect.mapError(effect, hostReply)

/** Params decoders, built once (the request path is hot). */
const paramDecoders: Readonly<Record<string, (input: unknown) => { readonly _tag: "Success"; readonly success: unknown } | { readonly _tag: "Failure"; readonly failure: { readonly message: string } }>> =
  Object.fromEntries(Object.entries(Methods).map(([method, { params }]) => [method, Schema.decodeUnknownResult(params as Schema.Codec<unknown>)]))

export const decodeParams = <M extends MethodName>(method: M, params: unknown): Effect.Effect<ParamsOf<M>, Reply> => {
  const decoded = paramDecoders[method]!(params ?? {})
  return decoded._tag === "Success"
    ? Effect.succeed(decoded.success as ParamsOf<M>)
    : Effect.fail(reply(ErrorCode.InvalidParams, `invalid params for ${method}: ${decoded.failure.message}`))
}
