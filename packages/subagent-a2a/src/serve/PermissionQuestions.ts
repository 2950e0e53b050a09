import type { Message } from "@a2a-js/sdk"
import { Asker } from "@dsh/tools"
import { messageText } from "../internal/TaskView.ts"

/**
 * The A2A extension a client activates (the `A2A-Extensions` header, or the message's
 * `extensions`) to be asked dsh's permission questions: a call the rules leave to a person then
 * ends the task's status `input-required` with the question, and the client's next message on
 * that task answers it. Without it no one can be asked, and such a call is a denial naming the rule.
 */
export const PERMISSION_QUESTIONS_EXTENSION = "https://dsh.dev/a2a/extensions/permission-questions/v1"

/** The card's entry for the extension (optional: a client that ignores it is answered as before). */
export const permissionQuestionsExtension = {
  uri: PERMISSION_QUESTIONS_EXTENSION,
  description: "Permission questions as input-required: answer allow, allow always or deny on the same task",
  required: false,
  params: undefined
}

/** The answers a question accepts, as the client is told them. */
export const ANSWERS = ["allow", "allow always", "deny"] as const

/** Whether this request opted in: the extension activated by header, or listed by the message. */
export const optedIn = (activated: ReadonlyArray<string> | undefined, message: Message): boolean =>
  (activated ?? []).includes(PERMISSION_QUESTIONS_EXTENSION) || message.extensions.includes(PERMISSION_QUESTIONS_EXTENSION)

/** What the client reads in the `input-required` status: who wants what, the rule, the answers. */
export const questionMessage = (question: Asker.PermissionQuestion): string =>
  `Permission needed: ${Asker.questionText(question)} (${question.subject}, ${question.reason}). ` +
  `Answer "allow", "allow always" (for the rest of this conversation) or "deny" in your next message on this task.`

/** The status metadata of a question, for clients that read structure rather than text. */
export const questionMetadata = (question: Asker.PermissionQuestion): Record<string, unknown> => ({
  "dsh/permission": { agent: question.agent, subject: question.subject, tool: question.tool, reason: question.reason, summary: question.summary, answers: [...ANSWERS] }
})

const ALLOW_ONCE = new Set(["allow", "allow once", "yes", "y", "ok"])
const ALLOW_ALWAYS = new Set(["allow always", "always", "allow for this session"])
const DENY = new Set(["deny", "no", "n"])

/** The client's answer, from its message's text; undefined when it is none of the accepted ones. */
export const readAnswer = (message: Message, question: Asker.PermissionQuestion): Asker.PermissionAnswer | undefined => {
  const said = messageText(message).trim().toLowerCase().replace(/[.!\s]+$/, "").replace(/\s+/g, " ")
  if (ALLOW_ONCE.has(said)) return { allow: true, remember: "once", by: "a2a-client" }
  if (ALLOW_ALWAYS.has(said)) return { allow: true, remember: "session", by: "a2a-client" }
  if (DENY.has(said)) return { allow: false, by: "a2a-client", reason: `${question.subject} was denied by the A2A client` }
  return undefined
}

/** The denial of a question still open when its task is cancelled. */
export const cancelledAnswer = (question: Asker.PermissionQuestion): Asker.PermissionAnswer => ({
  allow: false,
  by: "a2a-client",
  reason: `${question.subject} was not answered: the A2A task was cancelled`
})
