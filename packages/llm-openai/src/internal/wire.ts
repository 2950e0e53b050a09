/**
 * The Chat Completions wire format: mapping a `ModelRequest` to a request body, and
 * folding streamed `chat.completion.chunk` events back into `StreamPart`s. Kept free of
 * HTTP so the parser can be tested chunk by chunk.
 */
import { type Messages, Usage } from "@dsh/core"
import { Http, type LanguageModel, LlmError } from "@dsh/llm"
import { Effect, Predicate, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { foreignReasoningWarning, movedResultParts, REASONING_PROVIDER, toUserParts, type WireUserPart } from "./content.ts"

/** The adapter's registry name, also used as `LlmError.provider`. */
export const PROVIDER = "openai"

export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

export type WireMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<WireUserPart> }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: ReadonlyArray<WireToolCall> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

export interface WireTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Readonly<Record<string, unknown>>
  }
}

/** The body POSTed to `/chat/completions`. */
export interface WireRequest {
  readonly model: string
  readonly messages: ReadonlyArray<WireMessage>
  readonly stream: true
  readonly stream_options: { readonly include_usage: true }
  readonly tools?: ReadonlyArray<WireTool>
  readonly max_completion_tokens?: number
  readonly reasoning_effort?: "low" | "medium" | "high"
  readonly temperature?: number
}

const toWireMessage = (message: Messages.Message, warnings: Array<string>): WireMessage => {
  switch (message.role) {
    case "system":
      return { role: message.role, content: message.content }
    case "user": {
      const parts = message.parts === undefined ? [] : toUserParts(message.parts, "a user message", warnings)
      // Text-only stays a plain string: every compatible server takes that.
      return { role: "user", content: parts.some((p) => p.type !== "text") ? parts : message.content }
    }
    case "assistant": {
      const foreign = foreignReasoningWarning(message)
      if (foreign !== undefined) warnings.push(foreign)
      const calls = message.toolCalls ?? []
      if (calls.length === 0) return { role: "assistant", content: message.content }
      return {
        role: "assistant",
        // The documented shape for a pure tool-call turn is `content: null`.
        content: message.content === "" ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments }
        }))
      }
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
  }
}

/** Messages to the wire; a run of tool results is followed by one user message with their images. */
export const toWireMessages = (messages: ReadonlyArray<Messages.Message>): { readonly messages: Array<WireMessage>; readonly warnings: Array<string> } => {
  const out: Array<WireMessage> = []
  const warnings: Array<string> = []
  let moved: Array<WireUserPart> = []
  const flush = () => {
    if (moved.length > 0) out.push({ role: "user", content: moved })
    moved = []
  }
  for (const message of messages) {
    if (message.role !== "tool") flush()
    out.push(toWireMessage(message, warnings))
    if (message.role === "tool") moved.push(...movedResultParts(message, warnings))
  }
  flush()
  return { messages: out, warnings }
}

/** The body, and a warning for each part that could not be sent. */
export const planRequest = (
  model: string,
  request: LanguageModel.ModelRequest,
  options: { readonly maxOutputTokens?: number | undefined } = {}
): { readonly body: WireRequest; readonly warnings: ReadonlyArray<string> } => {
  const maxTokens = options.maxOutputTokens ?? request.maxOutputTokens
  const thinking = request.thinking
  const { messages, warnings } = toWireMessages(request.messages)
  const body: WireRequest = {
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool): WireTool => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters }
        }))
      }
      : {}),
    ...(maxTokens !== undefined ? { max_completion_tokens: maxTokens } : {}),
    ...(thinking !== undefined && thinking !== "off" ? { reasoning_effort: thinking } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {})
  }
  return { body, warnings }
}

// Every field is optional and nullable: OpenAI-compatible servers differ in what they send.
const OptString = Schema.optional(Schema.NullOr(Schema.String))
const OptNumber = Schema.optional(Schema.NullOr(Schema.Number))

const ToolCallDelta = Schema.Struct({
  index: OptNumber,
  id: OptString,
  function: Schema.optional(Schema.NullOr(Schema.Struct({
    name: OptString,
    // Some servers send a parsed object instead of JSON text.
    arguments: Schema.optional(Schema.Unknown)
  })))
})

const Choice = Schema.Struct({
  index: OptNumber,
  delta: Schema.optional(Schema.NullOr(Schema.Struct({
    content: OptString,
    // Reasoning text as DeepSeek and vLLM (`reasoning_content`) or OpenRouter (`reasoning`) stream it.
    reasoning_content: OptString,
    reasoning: OptString,
    tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCallDelta)))
  }))),
  finish_reason: OptString
})

/** One streamed chunk, as loosely as compatible servers need. */
export const StreamChunk = Schema.Struct({
  choices: Schema.optional(Schema.NullOr(Schema.Array(Choice))),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: OptNumber,
    completion_tokens: OptNumber,
    // OpenAI counts prompt tokens served from its cache here (they are part of prompt_tokens).
    prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: OptNumber }))),
    completion_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ reasoning_tokens: OptNumber })))
  }))),
  error: Schema.optional(Schema.Unknown)
})
export type StreamChunk = typeof StreamChunk.Type

/** Decodes one SSE data payload (already JSON-parsed), or fails with `BadResponse`. */
export const decodeStreamChunk = Http.makeEventDecoder(PROVIDER, StreamChunk, "stream chunk")

/** OpenAI's `finish_reason` in the seam's vocabulary; unknown values become `other`. */
export const mapFinishReason = (reason: string): LanguageModel.FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "length":
      return "length"
    case "content_filter":
      return "content-filter"
    default:
      return "other"
  }
}

/** Turns an in-stream `{"error": …}` payload into the reason a caller can act on. */
export const streamErrorOf = (error: unknown): LlmError.LlmError => {
  const message = Predicate.isString(error)
    ? error
    : Predicate.isObject(error) && Predicate.isString(error.message)
    ? error.message
    : JSON.stringify(error)
  const code = Predicate.isObject(error) ? `${String(error.code ?? "")} ${String(error.type ?? "")}` : ""
  const text = `${code} ${message}`
  const reason: LlmError.LlmErrorReason =
    LlmError.isContextOverflowText(text)
      ? "ContextOverflow"
      : /rate[ _-]?limit|too many requests|\b429\b/i.test(text)
      ? "RateLimited"
      : "BadResponse"
  return new LlmError.LlmError({
    reason,
    provider: PROVIDER,
    detail: `error in stream: ${message}`,
    retryable: LlmError.isRetryableReason(reason)
  })
}

interface PendingCall {
  id: string
  name: string
  arguments: string
}

/**
 * Folds chunks into parts. Tool-call fragments are keyed by `index` (id and name usually
 * come first, arguments in many pieces) and released whole at `finish_reason` or at the
 * end of the stream; the finish part waits for the end, since usage comes after it.
 */
export const makeChunkParser = () => {
  const pending = new Map<number, PendingCall>()
  let lastIndex = -1
  let reason: LanguageModel.FinishReason | undefined
  let usage: Usage.Usage = Usage.make(0, 0)
  let reasoning = ""

  // The reasoning streamed so far, as one part: released when the answer itself starts.
  const releaseReasoning = (): Array<LanguageModel.StreamPart> => {
    if (reasoning === "") return []
    const part: LanguageModel.StreamPart = { type: "reasoning", part: { type: "reasoning", text: reasoning, provider: REASONING_PROVIDER } }
    reasoning = ""
    return [part]
  }

  const releaseCalls = (): Array<LanguageModel.StreamPart> => {
    const out: Array<LanguageModel.StreamPart> = []
    for (const index of [...pending.keys()].sort((a, b) => a - b)) {
      const call = pending.get(index)!
      const done: Messages.ToolCall = {
        id: call.id === "" ? `call_${randomUUID().replaceAll("-", "")}` : call.id,
        name: call.name,
        // A call to a tool without parameters may stream no arguments at all.
        arguments: call.arguments.trim() === "" ? "{}" : call.arguments
      }
      out.push({ type: "tool-call", call: done })
    }
    pending.clear()
    return out
  }

  const slotFor = (fragment: typeof ToolCallDelta.Type): PendingCall => {
    let index: number
    if (Predicate.isNumber(fragment.index)) index = fragment.index
    else if (Predicate.isString(fragment.id) && fragment.id !== "" && pending.get(lastIndex)?.id !== fragment.id) {
      // Servers that omit `index` start a new call with a new id.
      index = lastIndex + 1
    } else index = Math.max(lastIndex, 0)
    lastIndex = Math.max(lastIndex, index)
    let slot = pending.get(index)
    if (slot === undefined) {
      slot = { id: "", name: "", arguments: "" }
      pending.set(index, slot)
    }
    return slot
  }

  const push = (chunk: StreamChunk): Effect.Effect<ReadonlyArray<LanguageModel.StreamPart>, LlmError.LlmError> => {
    if (chunk.error !== undefined && chunk.error !== null) return Effect.fail(streamErrorOf(chunk.error))
    const out: Array<LanguageModel.StreamPart> = []
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0)
    const delta = choice?.delta
    const thought = delta?.reasoning_content ?? delta?.reasoning
    if (Predicate.isString(thought) && thought !== "") {
      reasoning += thought
      out.push({ type: "reasoning-delta", text: thought })
    }
    if (Predicate.isString(delta?.content) && delta.content !== "") {
      out.push(...releaseReasoning(), { type: "text-delta", text: delta.content })
    }
    if ((delta?.tool_calls ?? []).length > 0) out.push(...releaseReasoning())
    for (const fragment of delta?.tool_calls ?? []) {
      const slot = slotFor(fragment)
      if (slot.id === "" && Predicate.isString(fragment.id)) slot.id = fragment.id
      const fn = fragment.function
      if (slot.name === "" && Predicate.isString(fn?.name)) slot.name = fn.name
      const args = fn?.arguments
      if (Predicate.isString(args)) slot.arguments += args
      else if (args !== undefined && args !== null) slot.arguments += JSON.stringify(args)
    }
    if (Predicate.isString(choice?.finish_reason) && choice.finish_reason !== "") {
      reason = mapFinishReason(choice.finish_reason)
      out.push(...releaseReasoning(), ...releaseCalls())
    }
    if (chunk.usage) {
      const reasoningTokens = chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0
      usage = {
        ...Usage.make(chunk.usage.prompt_tokens ?? 0, chunk.usage.completion_tokens ?? 0, {
          read: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0
        }),
        ...(reasoningTokens > 0 ? { reasoningTokens } : {})
      }
    }
    return Effect.succeed(out)
  }

  /** Releases any calls still pending and the finish part. */
  const end = (): ReadonlyArray<LanguageModel.StreamPart> => {
    const thoughts = releaseReasoning()
    const calls = releaseCalls()
    const finalReason = reason ?? (calls.length > 0 ? "tool-calls" : "stop")
    return [...thoughts, ...calls, { type: "finish", reason: finalReason, usage }]
  }

  return { push, end }
}
