import type { Asker } from "@dsh/tools"
import { Deferred, Effect, Schema } from "effect"
import { type PermissionAskParams, PermissionAskResult } from "../Methods.ts"
import type { RequestId } from "../Protocol.ts"
import type { SdkError } from "../SdkError.ts"

const decodeAskResult = Schema.decodeUnknownResult(PermissionAskResult)

/**
 * The server's side of `permission.ask`: requests it sends to the client (string ids `s1`,
 * `s2`, … that cannot collide with the client's), the answers it waits for, and an `Asker` per
 * session. A question whose turn is interrupted is withdrawn with `$/cancelRequest`; an error
 * answer, a malformed one or a closed connection is a denial.
 */
export const makeClientQuestions = (io: {
  readonly send: (message: unknown) => Effect.Effect<void, SdkError>
  readonly notify: (message: unknown) => Effect.Effect<void>
}) => {
  const waiting = new Map<string, Deferred.Deferred<unknown, string>>()
  let nextId = 0

  const askerFor = (sessionId: string): Asker.AskerShape => ({
    ask: (q) =>
      Effect.gen(function*() {
        const id = `s${++nextId}`
        const answer = Deferred.makeUnsafe<unknown, string>()
        waiting.set(id, answer)
        const params: PermissionAskParams = {
          sessionId,
          question: {
            agent: q.agent,
            subject: q.subject,
            tool: q.tool,
            kind: q.kind,
            ...(q.specifier === undefined ? {} : { specifier: q.specifier }),
            summary: q.summary,
            reason: q.reason,
            cwd: q.cwd
          }
        }
        const denied = (why: string): Asker.PermissionAnswer => ({ allow: false, by: "sdk-client", reason: `${q.subject} needs approval and the SDK client could not answer (${why})` })
        const reply = yield* io.send({ jsonrpc: "2.0", id, method: "permission.ask", params }).pipe(
          Effect.mapError((e) => e.message),
          Effect.andThen(Deferred.await(answer)),
          Effect.result,
          Effect.onInterrupt(() => io.notify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } })),
          Effect.ensuring(Effect.sync(() => waiting.delete(id)))
        )
        if (reply._tag === "Failure") return denied(reply.failure)
        const decoded = decodeAskResult(reply.success)
        if (decoded._tag === "Failure") return denied(`its answer does not match the protocol: ${decoded.failure.message}`)
        const a = decoded.success
        return a.allow
          ? { allow: true, by: "sdk-client", remember: a.remember ?? "once" }
          : { allow: false, by: "sdk-client", reason: a.reason ?? `the SDK client declined ${q.subject}` }
      })
  })

  /** An answer (or an error) to one of our requests; anything else is stray and ignored. */
  const answered = (id: RequestId | null, outcome: { readonly result: unknown } | { readonly error: string }) =>
    Effect.sync(() => {
      const deferred = typeof id === "string" ? waiting.get(id) : undefined
      if (deferred !== undefined) Deferred.doneUnsafe(deferred, "result" in outcome ? Effect.succeed(outcome.result) : Effect.fail(outcome.error))
    })

  /** Every open question is denied (the connection ended). */
  const abandon = (why: string) => {
    for (const deferred of waiting.values()) Deferred.doneUnsafe(deferred, Effect.fail(why))
  }

  return { askerFor, answered, abandon }
}
