import type { Events } from "@dsh/core"

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

/**
 * One line for a person reading what an agent did (logs, live traces), or undefined for
 * events that are not worth a line on their own (deltas, step and usage bookkeeping).
 */
export const eventLine = (event: Events.AgentEvent): string | undefined => {
  switch (event.type) {
    case "message": {
      // Media is named, not shown: a reader sees that an image went with the text.
      const parts = event.message.role === "user" || event.message.role === "tool" ? event.message.parts ?? [] : []
      const media = parts.flatMap((p) => p.type === "text" ? [] : [` [${p.type} ${p.type === "file" ? p.filename ?? p.mediaType : p.mediaType}]`])
      return `${event.message.role}: ${event.message.content}${media.join("")}`
    }
    case "tool-call":
      return `→ ${event.name} ${event.input}`
    case "tool-result":
      return `← ${event.name}${event.isError ? " (error)" : ""}: ${clip(event.output, 500)}`
    case "subagent-start":
      return `⇢ ${event.handle} (${event.agent}) started: ${event.description}`
    case "subagent-end":
      return `⇠ ${event.handle} ${event.status} in ${event.durationMs} ms, ${event.usage.totalTokens} tokens`
    case "notice":
      return `[${event.level}] ${event.message}`
    case "todo": {
      const done = event.todos.filter((t) => t.status === "completed").length
      const now = event.todos.find((t) => t.status === "in_progress")
      return `☑ todo ${done}/${event.todos.length} done${now === undefined ? "" : `; now: ${now.activeForm ?? now.content}`}`
    }
    case "hook":
      return `↯ hook ${event.event} ${JSON.stringify(event.hook)} ${event.outcome}${event.exitCode === undefined ? "" : ` (exit ${event.exitCode})`}${event.message === undefined || event.message === "" ? "" : `: ${clip(event.message, 300)}`}`
    case "permission": {
      const how = event.via === "asked"
        ? `asked (${event.rule ?? "?"}), answered by ${event.by ?? "?"}${event.remember === "session" ? ", for this session" : ""}`
        : event.rule ?? event.via
      return `⚑ ${event.subject} ${event.decision}: ${how}`
    }
    default:
      return undefined
  }
}

/**
 * The records of a transcript a reader wants: the conversation (user messages and the
 * agent's non-empty answers), plus tool calls, results, permission decisions and hook runs with
 * `tools` (decisions and hook runs alone with `permissions`); the last `limit`.
 */
export const conversationRecords = (
  records: ReadonlyArray<Events.WireRecord>,
  options: { readonly tools?: boolean | undefined; readonly permissions?: boolean | undefined; readonly limit?: number | undefined } = {}
): ReadonlyArray<Events.WireRecord> => {
  const shown = records.filter((r) =>
    r.type === "message"
      ? r.message.role === "user" || (r.message.role === "assistant" && (options.tools === true || r.message.content !== ""))
      : r.type === "permission" || r.type === "hook"
      ? options.tools === true || options.permissions === true
      : options.tools === true && (r.type === "tool-call" || r.type === "tool-result")
  )
  return options.limit === undefined ? shown : shown.slice(-options.limit)
}
