import type { Events, Messages } from "@dsh/core"

/** The note given in place of a tool result that never arrived (a crash or a stop mid-call). */
export const MISSING_RESULT = "Error: no result: the run stopped before this tool call finished."

/**
 * Rebuilds the conversation from persisted events, closing every tool call that has no
 * result, so that a history cut by a crash or a cancel is still a valid conversation.
 */
export const historyFromRecords = (records: ReadonlyArray<Events.WireRecord>): Array<Messages.Message> =>
  closeOpenToolCalls(records.flatMap((r) => (r.type === "message" ? [r.message] : [])))

export const closeOpenToolCalls = (messages: ReadonlyArray<Messages.Message>): Array<Messages.Message> => {
  const out: Array<Messages.Message> = []
  let open: Array<{ id: string; name: string }> = []
  const flush = () => {
    for (const call of open) {
      out.push({ role: "tool", toolCallId: call.id, name: call.name, content: MISSING_RESULT, isError: true } satisfies Messages.ToolMessage)
    }
    open = []
  }
  for (const message of messages) {
    if (message.role === "tool") {
      open = open.filter((c) => c.id !== message.toolCallId)
      out.push(message)
      continue
    }
    flush()
    out.push(message)
    if (message.role === "assistant") open = ((message as Messages.AssistantMessage).toolCalls ?? []).map((c) => ({ id: c.id, name: c.name }))
  }
  flush()
  return out
}

/** The last assistant text of a conversation: a one-shot agent's result. */
export const finalText = (messages: ReadonlyArray<Messages.Message>): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role === "assistant" && m.content.trim() !== "") return m.content
  }
  return ""
}
