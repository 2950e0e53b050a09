import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events } from "@dsh/core"
import type { AskedCall } from "./Connection.ts"

/** Everything known about one tool call of the child, merged from every update about it. */
interface CallState {
  readonly id: string
  /** The name the parent's rules and transcripts use: the child's `name`, else its first title's first word, else the kind. */
  name: string
  title: string | undefined
  kind: string | undefined
  rawInput: unknown
  rawOutput: unknown
  locations: ReadonlyArray<string>
  output: string
  startedAt: number
  /** The input last recorded in a `tool-call` event (undefined: not recorded yet). */
  recorded: string | undefined
  done: boolean
}

/** The fields a `tool_call`, a `tool_call_update` and a permission request's `toolCall` share. */
type CallFields = {
  readonly toolCallId: string
  readonly title?: string | null | undefined
  readonly name?: string | null | undefined
  readonly kind?: string | null | undefined
  readonly status?: acp.ToolCallStatus | null | undefined
  readonly content?: ReadonlyArray<acp.ToolCallContent> | null | undefined
  readonly locations?: ReadonlyArray<acp.ToolCallLocation> | null | undefined
  readonly rawInput?: unknown
  readonly rawOutput?: unknown
}

const textOf = (content: ReadonlyArray<acp.ToolCallContent>): string =>
  content.map((c) => {
    if (c.type === "content") return c.content.type === "text" ? c.content.text : `[${c.content.type}]`
    if (c.type === "diff") return `diff ${c.path}`
    return `[${c.type}]`
  }).join("\n")

/** Whether a raw input says anything (`{}` and `""` do not). */
const given = (v: unknown): boolean =>
  v !== undefined && v !== null && v !== "" && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0)

/** A tool's name as the parent's approval rules know it: `name`, else the title's first word, else the kind. */
export const toolNameOf = (call: { readonly name?: string | null | undefined; readonly title?: string | null | undefined; readonly kind?: string | null | undefined }): string =>
  call.name ?? (call.title?.trim().split(/\s+/)[0]?.replace(/^[`'"]+|[`'"]+$/g, "") || undefined) ?? call.kind ?? "tool"

/**
 * The child's tool calls, rebuilt from everything the child says about them: a `tool_call`,
 * every `tool_call_update` (title, kind, `rawInput`, `rawOutput`, status, content, locations
 * merged into the call they name) and permission requests. A call is created by whichever of
 * these comes first. Its `tool-call` event is recorded once the call says what it runs (its
 * input, or it started or ended, or permission was asked for it); if its input changes after
 * that, the call is recorded again with the same id (readers keep the last). Its `tool-result`
 * is recorded when it completes or fails.
 */
export const makeToolCalls = (now: () => number) => {
  const calls = new Map<string, CallState>()

  const merge = (u: CallFields): CallState => {
    let call = calls.get(u.toolCallId)
    if (call === undefined) {
      call = {
        id: u.toolCallId,
        name: toolNameOf(u),
        title: undefined,
        kind: undefined,
        rawInput: undefined,
        rawOutput: undefined,
        locations: [],
        output: "",
        startedAt: now(),
        recorded: undefined,
        done: false
      }
      calls.set(call.id, call)
    }
    if (u.name != null) call.name = u.name
    if (u.title != null) call.title = u.title
    if (u.kind != null) call.kind = u.kind
    if (u.rawInput !== undefined && given(u.rawInput)) call.rawInput = u.rawInput
    if (u.rawOutput !== undefined) call.rawOutput = u.rawOutput
    if (u.locations != null && u.locations.length > 0) call.locations = u.locations.map((l) => l.path)
    if (u.content != null && u.content.length > 0) call.output = textOf(u.content)
    return call
  }

  /** The input as recorded: the raw input when there is one, else what the title and locations say. */
  const inputOf = (call: CallState): string =>
    JSON.stringify(
      given(call.rawInput)
        ? call.rawInput
        : { ...(call.title === undefined ? {} : { title: call.title }), ...(call.locations.length === 0 ? {} : { locations: call.locations }) }
    )

  /** Records the call (again, if its input changed since). */
  const record = (call: CallState): Array<Events.AgentEvent> => {
    const input = inputOf(call)
    if (call.recorded === input) return []
    const first = call.recorded === undefined
    // A restated input after the result would read as a new call: keep the first then.
    if (!first && call.done) return []
    call.recorded = input
    return [{ type: "tool-call", id: call.id, name: call.name, input }]
  }

  const finish = (call: CallState, failed: boolean): Array<Events.AgentEvent> => {
    if (call.done) return []
    const out = record(call)
    call.done = true
    const output = call.output !== "" ? call.output : call.rawOutput !== undefined ? JSON.stringify(call.rawOutput) : ""
    out.push({ type: "tool-result", id: call.id, name: call.name, output, isError: failed, durationMs: now() - call.startedAt })
    return out
  }

  /** A `tool_call` or `tool_call_update`: the events it adds to the transcript. */
  const apply = (u: CallFields): Array<Events.AgentEvent> => {
    const call = merge(u)
    if (u.status === "completed" || u.status === "failed") return finish(call, u.status === "failed")
    const ready = call.recorded !== undefined || given(call.rawInput) || u.status === "in_progress"
    return ready ? record(call) : []
  }

  return {
    apply,
    /** A permission request about a call: the call is merged (created if unheard of) and recorded. */
    asked: (toolCall: CallFields): AskedCall & { readonly events: Array<Events.AgentEvent> } => {
      const call = merge(toolCall)
      return { name: call.name, input: call.rawInput ?? {}, title: call.title, kind: call.kind, locations: call.locations, events: record(call) }
    },
    /** The turn ended: calls that never finished are recorded as failed. */
    close: (): Array<Events.AgentEvent> =>
      [...calls.values()].flatMap((call) => {
        if (call.done) return []
        if (call.output === "") call.output = "no result: the turn ended before this tool call finished"
        return finish(call, true)
      }),
    /** The tool name of a call the child announced. */
    nameOf: (id: string): string | undefined => calls.get(id)?.name
  }
}

export type ToolCalls = ReturnType<typeof makeToolCalls>
