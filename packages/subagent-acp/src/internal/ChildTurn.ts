import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events } from "@dsh/core"
import { makeToolCalls } from "./ToolCalls.ts"
import { makeUsageMeter } from "./UsageMeter.ts"

export { toolNameOf } from "./ToolCalls.ts"

/**
 * The child's side of its prompt turns, rebuilt from its `session/update`s as dsh events: text
 * deltas, one assistant message per stretch of text (a tool call or a new message id ends
 * one), tool calls merged from every update about them (see `makeToolCalls`), and the usage
 * readings of `usage_update`s (see `makeUsageMeter`). The last non-empty stretch of text is
 * the child's result.
 */
export const makeChildTurn = (now: () => number = Date.now) => {
  let segment = ""
  let segmentId: string | null | undefined
  let lastText = ""
  let calls = makeToolCalls(now)
  const usage = makeUsageMeter()

  const closeSegment = (): Array<Events.AgentEvent> => {
    if (segment === "") return []
    const message: Events.AgentEvent = { type: "message", message: { role: "assistant", content: segment } }
    if (segment.trim() !== "") lastText = segment
    segment = ""
    return [message]
  }

  const update = (u: acp.SessionUpdate): Array<Events.AgentEvent> => {
    switch (u.sessionUpdate) {
      case "agent_message_chunk": {
        if (u.content.type !== "text") return []
        const out = u.messageId != null && segmentId != null && u.messageId !== segmentId ? closeSegment() : []
        segmentId = u.messageId ?? segmentId
        segment += u.content.text
        out.push({ type: "text-delta", text: u.content.text })
        return out
      }
      case "tool_call":
      case "tool_call_update": {
        const events = calls.apply(u)
        return events.length === 0 ? [] : [...closeSegment(), ...events]
      }
      case "usage_update":
        usage.update(u)
        return []
      default:
        return []
    }
  }

  return {
    update,
    /** A new turn starts: its own calls, text and usage counts. */
    start: (): void => {
      calls = makeToolCalls(now)
      segment = ""
      segmentId = undefined
      lastText = ""
      usage.start()
    },
    /** A permission request: the call it is about (created if the child never announced it). */
    asked: (toolCall: acp.ToolCallUpdate) => {
      const asked = calls.asked(toolCall)
      return { ...asked, events: asked.events.length === 0 ? [] : [...closeSegment(), ...asked.events] }
    },
    /** Ends the turn: the open stretch of text, and tool calls that never finished (as failed). */
    finish: (): Array<Events.AgentEvent> => [...closeSegment(), ...calls.close()],
    /** The child's final message so far. */
    result: () => segment.trim() !== "" ? segment : lastText,
    /** The tool name of a call the child announced, for permission requests. */
    toolName: (id: string) => calls.nameOf(id),
    usage
  }
}

export type ChildTurn = ReturnType<typeof makeChildTurn>
