import type { AgentEvent, WireRecord } from "@dsh/core"

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

/**
 * One line for a person reading what an agent did (logs, live traces), or undefined for
 * events that are not worth a line on their own (deltas, step and usage bookkeeping).
 */
export const eventLine = (event: AgentEvent): string | undefined => {
  switch (event.type) {
    case "message":
      return `${event.message.role}: ${event.message.content}`
    case "tool-call":
      return `→ ${event.name} ${event.input}`
    case "tool-result":
      return `← ${event.name}${event.isError ? " (error)" : ""}: ${clip(event.output, 500)}`
    case "subagent-start":
      return `⇢ ${event.handle} (${event.agent}) started: ${event.description}`
    case "subagent-end":
      return `⇠ ${event.handle} ${event.status} in ${event.durationMs} ms, ${event.usage.totalTokens} tokens`
    case "permission":
      return `? ${event.subject} ${event.decision} (${event.via}${event.by === undefined ? "" : ` by ${event.by}`}${event.rule === undefined ? "" : `: ${event.rule}`})`
    case "notice":
      return `[${event.level}] ${event.message}`
    default:
      return undefined
  }
}

/**
 * The records of a transcript a reader wants: the conversation (user messages and the
 * agent's non-empty answers), plus tool calls, permission decisions and results with
 * `tools`; the last `limit`.
 */
export const conversationRecords = (
  records: ReadonlyArray<WireRecord>,
  options: { readonly tools?: boolean | undefined; readonly limit?: number | undefined } = {}
): ReadonlyArray<WireRecord> => {
  const shown = records.filter((r) =>
    r.type === "message"
      ? r.message.role === "user" || (r.message.role === "assistant" && (options.tools === true || r.message.content !== ""))
      : options.tools === true && (r.type === "tool-call" || r.type === "permission" || r.type === "tool-result")
  )
  return options.limit === undefined ? shown : shown.slice(-options.limit)
}
