import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { AgentEvent } from "@dsh/core"

interface CallState {
  readonly id: string
  name: string
  input: unknown
  readonly startedAt: number
  output: string
  done: boolean
}

const textOf = (content: ReadonlyArray<acp.ToolCallContent> | null | undefined): string =>
  (content ?? []).map((c) => {
    if (c.type === "content") return c.content.type === "text" ? c.content.text : `[${c.content.type}]`
    if (c.type === "diff") return `diff ${c.path}`
    return `[${c.type}]`
  }).join("\n")

/** A tool's name as the parent's approval rules know it: `name`, else the title's first word. */
export const toolNameOf = (call: { readonly name?: string | null | undefined; readonly title?: string | null | undefined; readonly kind?: string | null | undefined }): string =>
  call.name ?? call.title?.trim().split(/\s+/)[0] ?? call.kind ?? "tool"

/**
 * The child's side of one prompt turn, rebuilt from its `session/update`s as dsh events: text
 * deltas, one assistant message per stretch of text (a tool call or a new message id ends
 * one), tool calls and their results. The last non-empty stretch is the child's result.
 */
export const makeChildTurn = () => {
  let segment = ""
  let segmentId: string | null | undefined
  let lastText = ""
  const calls = new Map<string, CallState>()

  const closeSegment = (): Array<AgentEvent> => {
    if (segment === "") return []
    const message: AgentEvent = { type: "message", message: { role: "assistant", content: segment } }
    if (segment.trim() !== "") lastText = segment
    segment = ""
    return [message]
  }

  const finishCall = (call: CallState, failed: boolean): Array<AgentEvent> => {
    if (call.done) return []
    call.done = true
    return [{
      type: "tool-result",
      id: call.id,
      name: call.name,
      output: call.output,
      isError: failed,
      durationMs: Date.now() - call.startedAt
    }]
  }

  const update = (u: acp.SessionUpdate): Array<AgentEvent> => {
    switch (u.sessionUpdate) {
      case "agent_message_chunk": {
        if (u.content.type !== "text") return []
        const out = u.messageId != null && segmentId != null && u.messageId !== segmentId ? closeSegment() : []
        segmentId = u.messageId ?? segmentId
        segment += u.content.text
        out.push({ type: "text-delta", text: u.content.text })
        return out
      }
      case "tool_call": {
        const out = closeSegment()
        const call: CallState = {
          id: u.toolCallId,
          name: toolNameOf(u),
          input: u.rawInput ?? {},
          startedAt: Date.now(),
          output: textOf(u.content),
          done: false
        }
        calls.set(call.id, call)
        out.push({ type: "tool-call", id: call.id, name: call.name, input: JSON.stringify(call.input) })
        if (u.status === "completed" || u.status === "failed") out.push(...finishCall(call, u.status === "failed"))
        return out
      }
      case "tool_call_update": {
        const call = calls.get(u.toolCallId)
        if (call === undefined) return []
        if (u.name != null) call.name = u.name
        if (u.content != null) call.output = textOf(u.content)
        if (u.rawOutput !== undefined && u.content == null) call.output = JSON.stringify(u.rawOutput)
        return u.status === "completed" || u.status === "failed" ? finishCall(call, u.status === "failed") : []
      }
      default:
        return []
    }
  }

  /** Ends the turn: the open stretch of text, and tool calls that never finished (as failed). */
  const finish = (): Array<AgentEvent> => {
    const out = closeSegment()
    for (const call of calls.values()) {
      if (!call.done) {
        call.output ||= "no result: the turn ended before this tool call finished"
        out.push(...finishCall(call, true))
      }
    }
    return out
  }

  return {
    update,
    finish,
    /** The child's final message so far. */
    result: () => segment.trim() !== "" ? segment : lastText,
    /** The tool name of a call the child announced, for permission requests. */
    toolName: (id: string) => calls.get(id)?.name
  }
}

export type ChildTurn = ReturnType<typeof makeChildTurn>
