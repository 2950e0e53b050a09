import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events, Usage } from "@dsh/core"
import { isAbsolute, resolve } from "node:path"

/** ACP tool kinds of dsh's built-in tools; any other tool is `other`. */
const TOOL_KINDS: ReadonlyMap<string, acp.ToolKind> = new Map([
  ["Read", "read"], ["Write", "edit"], ["Edit", "edit"], ["Bash", "execute"], ["Glob", "search"], ["Grep", "search"], ["WebFetch", "fetch"]
])

/** The ACP tool kind of a dsh tool, so editors pick the right icon and affordances. */
export const toolKind = (name: string): acp.ToolKind => TOOL_KINDS.get(name) ?? "other"

const parseInput = (input: string): unknown => {
  try {
    return input.trim() === "" ? {} : JSON.parse(input)
  } catch {
    return input
  }
}

const field = (input: unknown, ...names: ReadonlyArray<string>): string | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  for (const n of names) {
    const v = (input as Record<string, unknown>)[n]
    if (typeof v === "string" && v !== "") return v
  }
  return undefined
}

/** A one-line title for a tool call: the tool name and its most telling argument. */
export const toolTitle = (name: string, input: unknown): string => {
  const detail = field(input, "command", "path", "file_path", "pattern", "description", "url")
  const line = detail?.split("\n")[0]
  return line === undefined ? name : `${name} ${line.length > 120 ? `${line.slice(0, 117)}...` : line}`
}

const locations = (input: unknown, cwd: string): Array<acp.ToolCallLocation> | undefined => {
  const path = field(input, "path", "file_path")
  return path === undefined ? undefined : [{ path: isAbsolute(path) ? path : resolve(cwd, path) }]
}

const text = (value: string): acp.ContentBlock => ({ type: "text", text: value })

/** The `tool_call` update that announces a tool run. */
export const toolCallUpdate = (id: string, name: string, input: string, cwd: string, status: acp.ToolCallStatus): acp.SessionUpdate => {
  const raw = parseInput(input)
  const where = locations(raw, cwd)
  return {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: toolTitle(name, raw),
    name,
    kind: toolKind(name),
    status,
    rawInput: raw,
    ...(where === undefined ? {} : { locations: where })
  }
}

/** The stop reason a subagent state snapshot reports for a child's run status. */
export const childStopReason = (status: Events.RunStatus, error?: string): acp.IdleStateUpdate =>
  status === "completed"
    ? { stopReason: "end_turn" }
    : status === "cancelled"
    ? { stopReason: "cancelled" }
    : { stopReason: "error", error: { code: -32603, message: error ?? `the child ended ${status}` } }

export const acpUsage = (usage: Usage.Usage): acp.Usage => ({
  inputTokens: usage.inputTokens,
  outputTokens: usage.outputTokens,
  totalTokens: usage.totalTokens
})

/**
 * How a stream of dsh events becomes ACP session updates:
 * - `live`: the main agent during a prompt (the client sent the prompt, so it is not echoed;
 *   text comes from deltas, one message id per model step);
 * - `child`: a subagent's live events on its own session (its prompt is shown as the user turn);
 * - `replay`: persisted records on `session/load` (no deltas exist; whole messages are sent).
 * Subagent lifecycle and notices need client capabilities and are handled by the reporter.
 */
export const makeUpdateMapper = (mode: "live" | "child" | "replay", cwd: string, contextWindow?: number) => {
  let messageId = `${mode}-0`
  let step = 0
  return (event: Events.AgentEvent): ReadonlyArray<acp.SessionUpdate> => {
    switch (event.type) {
      case "turn-start":
        messageId = `turn-${event.turn}`
        return mode === "child" ? [{ sessionUpdate: "user_message_chunk", content: text(event.prompt) }] : []
      case "step-start":
        messageId = `turn-${event.turn}-step-${event.step}`
        return []
      case "text-delta":
        return mode === "replay" ? [] : [{ sessionUpdate: "agent_message_chunk", content: text(event.text), messageId }]
      case "message": {
        if (mode !== "replay") return []
        const m = event.message
        step++
        if (m.role === "user") return [{ sessionUpdate: "user_message_chunk", content: text(m.content), messageId: `message-${step}` }]
        if (m.role === "assistant" && m.content !== "") {
          return [{ sessionUpdate: "agent_message_chunk", content: text(m.content), messageId: `message-${step}` }]
        }
        return []
      }
      case "tool-call":
        return [toolCallUpdate(event.id, event.name, event.input, cwd, "in_progress")]
      case "tool-result":
        return [{
          sessionUpdate: "tool_call_update",
          toolCallId: event.id,
          status: event.isError ? "failed" : "completed",
          content: [{ type: "content", content: text(event.output) }]
        }]
      case "usage":
        // `used`/`size` describe the context window; without a known size there is nothing honest to send.
        return contextWindow === undefined || mode === "replay"
          ? []
          : [{ sessionUpdate: "usage_update", used: event.usage.inputTokens + event.usage.outputTokens, size: contextWindow }]
      default:
        return []
    }
  }
}

/** The text of a prompt: text blocks as they are, resources by their text or a reference. */
export const promptText = (blocks: ReadonlyArray<acp.ContentBlock>): string =>
  blocks.map((b) => {
    switch (b.type) {
      case "text":
        return b.text
      case "resource_link":
        return `[${b.title ?? b.name}](${b.uri})`
      case "resource":
        return "text" in b.resource ? `<resource uri="${b.resource.uri}">\n${b.resource.text}\n</resource>` : `[resource ${b.resource.uri}]`
      default:
        return ""
    }
  }).filter((s) => s !== "").join("\n\n")
