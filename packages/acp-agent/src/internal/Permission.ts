import * as acp from "@agentclientprotocol/sdk/unstable"
import type { Asker } from "@dsh/tools"
import { Effect } from "effect"
import type { Reporter } from "./Reporter.ts"
import { toolCallUpdate } from "./Updates.ts"

/**
 * Where a parent dsh puts the reason it denied a permission, so the child's model reads the
 * real reason ("needs approval and this run is not interactive") instead of a bare refusal.
 */
export const DENY_REASON_META = "dsh/reason"

const OPTIONS: Array<acp.PermissionOption> = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow this in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" }
]

const reasonFrom = (meta: acp.RequestPermissionResponse["_meta"]): string | undefined => {
  const value = meta?.[DENY_REASON_META]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * An `Asker` that forwards questions to the ACP client (`session/request_permission`), for the
 * main agent and its children alike (a child's question goes on its own session when the
 * client knows children). "Always allow" holds for that call (`Bash(git push)`) for the rest
 * of the session. A client that cannot answer (no handler, a broken connection) means
 * "denied", with a reason the model reads; a cancelled prompt withdraws the question.
 */
export const clientAsker = (options: {
  readonly client: acp.AgentContext
  readonly reporter: Reporter
  readonly cwd: string
}): Asker.AskerShape => {
  let asked = 0
  return {
    ask: (question) =>
      Effect.gen(function*() {
        const toolCallId = options.reporter.takeCall(question.agent, question.tool) ?? `permission-${++asked}`
        const call = toolCallUpdate(toolCallId, question.tool, JSON.stringify(question.input ?? {}), options.cwd, "pending")
        const { sessionUpdate: _ignored, ...toolCall } = call as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>
        const params: acp.RequestPermissionRequest = {
          sessionId: options.reporter.sessionOf(question.agent),
          toolCall: { ...toolCall, title: question.summary || toolCall.title },
          options: OPTIONS
        }
        const answer = yield* Effect.tryPromise({
          // Interrupting the prompt withdraws the question ($/cancel_request) and stops waiting.
          try: (signal) =>
            options.client.request(acp.methods.client.session.requestPermission, params, {
              cancellationSignal: signal,
              stopWaitingOnCancel: true
            }),
          catch: (error) => error instanceof Error ? error.message : String(error)
        }).pipe(Effect.result)
        const denied = (reason: string): Asker.PermissionAnswer => ({ allow: false, by: "acp-client", reason })
        if (answer._tag === "Failure") return denied(`${question.subject} needs permission and the client could not be asked (${answer.failure})`)
        const outcome = answer.success.outcome
        if (outcome.outcome === "cancelled") return denied("the permission request was cancelled")
        const kind = OPTIONS.find((o) => o.optionId === outcome.optionId)?.kind
        if (kind === "allow_once" || kind === "allow_always") {
          return { allow: true, by: "acp-client", remember: kind === "allow_always" ? "session" : "once" } satisfies Asker.PermissionAnswer
        }
        return denied(reasonFrom(answer.success._meta) ?? `the user declined ${question.subject}`)
      })
  }
}
