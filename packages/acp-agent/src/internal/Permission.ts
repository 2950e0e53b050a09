import * as acp from "@agentclientprotocol/sdk/unstable"
import type { ApprovalDecision, ApprovalShape } from "@dsh/tools"
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
  { optionId: "allow_always", name: "Always allow this tool in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" }
]

const reasonFrom = (meta: acp.RequestPermissionResponse["_meta"]): string | undefined => {
  const value = meta?.[DENY_REASON_META]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * An `Approval` that asks the ACP client (`session/request_permission`) for every tool that
 * needs approval, for the main agent and its in-process children alike. "Always allow" holds
 * for the tool's name for the rest of the session. A client that cannot answer (no handler,
 * a broken connection) means "denied", with a reason the model reads; a cancelled prompt
 * withdraws the question.
 */
export const clientApproval = (options: {
  readonly client: acp.AgentContext
  readonly reporter: Reporter
  readonly cwd: string
  /** Tools allowed for the rest of the session; shared by every prompt of the session. */
  readonly alwaysAllowed: Set<string>
}): ApprovalShape => {
  let asked = 0
  return {
    decide: (request) =>
      Effect.gen(function*() {
        if (options.alwaysAllowed.has(request.tool)) return { allowed: true } satisfies ApprovalDecision
        const toolCallId = options.reporter.takeCall(request.agent, request.tool) ?? `permission-${++asked}`
        const call = toolCallUpdate(toolCallId, request.tool, JSON.stringify(request.input ?? {}), options.cwd, "pending")
        const { sessionUpdate: _ignored, ...toolCall } = call as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>
        const params: acp.RequestPermissionRequest = {
          sessionId: options.reporter.sessionOf(request.agent),
          toolCall: { ...toolCall, title: request.summary || toolCall.title },
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
        if (answer._tag === "Failure") {
          return { allowed: false, reason: `${request.tool} needs permission and the client could not be asked (${answer.failure})` }
        }
        const outcome = answer.success.outcome
        if (outcome.outcome === "cancelled") return { allowed: false, reason: "the permission request was cancelled" }
        const kind = OPTIONS.find((o) => o.optionId === outcome.optionId)?.kind
        if (kind === "allow_always") options.alwaysAllowed.add(request.tool)
        if (kind === "allow_once" || kind === "allow_always") return { allowed: true }
        return { allowed: false, reason: reasonFrom(answer.success._meta) ?? `the user declined ${request.tool}` }
      })
  }
}
