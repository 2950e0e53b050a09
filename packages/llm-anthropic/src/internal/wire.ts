/**
 * The Anthropic Messages wire format: mapping a `ModelRequest` to a request body, and
 * folding streamed events (`message_start` … `message_stop`) back into `StreamPart`s.
 * Kept free of HTTP so the parser can be tested event by event.
 */
import { makeUsage, type Message, type ToolMessage } from "@dsh/core"
import {
  makeEventDecoder,
  type FinishReason,
  isContextOverflowText,
  isRetryableReason,
  LlmError,
  type LlmErrorReason,
  type ModelRequest,
  type StreamPart
} from "@dsh/llm"
import { Effect, Predicate, Schema } from "effect"
import { partsToBlocks, REASONING_PROVIDER, reasoningToBlocks, type WireMediaBlock, type WireThinkingBlock } from "./content.ts"

/** The adapter's registry name, also used as `LlmError.provider`. */
export const PROVIDER = "anthropic"

/** Used when neither the config nor the request caps the answer; Anthropic requires a value. */
export const DEFAULT_MAX_TOKENS = 8192

export type WireContentBlock =
  | WireMediaBlock
  | WireThinkingBlock
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | {
    readonly type: "tool_result"
    readonly tool_use_id: string
    readonly content: string | ReadonlyArray<WireMediaBlock>
    readonly is_error?: true
  }

export interface WireMessage {
  readonly role: "user" | "assistant"
  readonly content: string | ReadonlyArray<WireContentBlock>
}

export interface WireTool {
  readonly name: string
  readonly description: string
  readonly input_schema: Readonly<Record<string, unknown>>
}

/** The body POSTed to `/v1/messages`. */
export interface WireRequest {
  readonly model: string
  readonly max_tokens: number
  readonly messages: ReadonlyArray<WireMessage>
  readonly stream: true
  readonly system?: string
  readonly tools?: ReadonlyArray<WireTool>
  readonly temperature?: number
  readonly thinking?: { readonly type: "enabled"; readonly budget_tokens: number }
}

/** Thinking budgets per effort; clamped below `max_tokens` and dropped under Anthropic's 1024 minimum. */
export const THINKING_BUDGET = { low: 2048, medium: 8192, high: 24576 } as const

const parseInput = (args: string): unknown => {
  try {
    const parsed = JSON.parse(args) as unknown
    return Predicate.isObject(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

const toolResult = (message: ToolMessage, warnings: Array<string>): WireContentBlock => {
  // A result with images or PDFs goes as blocks; a text-only one stays a plain string.
  const media = message.parts?.some((p) => p.type !== "text") === true
  const blocks = media ? partsToBlocks(message.parts ?? [], `the result of ${message.name}`, warnings) : []
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId,
    content: media && blocks.length > 0 ? blocks : message.content,
    ...(message.isError === true ? { is_error: true as const } : {})
  }
}

/** Chat messages to Anthropic turns: system text goes top-level, consecutive tool results share one user turn. */
export const toWireMessages = (
  messages: ReadonlyArray<Message>
): { readonly system: string | undefined; readonly messages: Array<WireMessage>; readonly warnings: Array<string> } => {
  const system: Array<string> = []
  const out: Array<WireMessage> = []
  const warnings: Array<string> = []
  let results: Array<WireContentBlock> | undefined
  for (const message of messages) {
    if (message.role !== "tool") results = undefined
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user": {
        const blocks = message.parts === undefined ? [] : partsToBlocks(message.parts, "a user message", warnings)
        out.push({ role: "user", content: blocks.length > 0 ? blocks : message.content })
        break
      }
      case "assistant": {
        // Thinking comes first, as Anthropic produced it: a tool loop continues only after it.
        const blocks: Array<WireContentBlock> = reasoningToBlocks(message.reasoning ?? [], warnings)
        if (message.content !== "") blocks.push({ type: "text", text: message.content })
        for (const call of message.toolCalls ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) })
        }
        // Anthropic rejects empty assistant turns; an empty one carries nothing anyway.
        if (blocks.length > 0) out.push({ role: "assistant", content: blocks })
        break
      }
      case "tool":
        if (results === undefined) {
          results = []
          out.push({ role: "user", content: results })
        }
        results.push(toolResult(message, warnings))
    }
  }
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages: out, warnings }
}

const isThinking = (block: WireContentBlock): boolean => block.type === "thinking" || block.type === "redacted_thinking"

/** The messages without thinking blocks; assistant turns left empty are dropped (the API rejects them). */
const withoutThinking = (messages: ReadonlyArray<WireMessage>): Array<WireMessage> =>
  messages.flatMap((m) => {
    if (m.role !== "assistant" || typeof m.content === "string" || !m.content.some(isThinking)) return [m]
    const content = m.content.filter((b) => !isThinking(b))
    return content.length > 0 ? [{ ...m, content }] : []
  })

const hasThinking = (message: WireMessage | undefined): boolean =>
  message !== undefined && typeof message.content !== "string" &&
  message.content.some(isThinking)

/** Maps a provider-neutral request to a streaming Messages body (see `planRequest` for what it dropped). */
export const toWireRequest = (
  model: string,
  request: ModelRequest,
  options: { readonly maxOutputTokens?: number | undefined } = {}
): WireRequest => planRequest(model, request, options).body

/** The body, and a warning for each part or setting that could not be sent. */
export const planRequest = (
  model: string,
  request: ModelRequest,
  options: { readonly maxOutputTokens?: number | undefined } = {}
): { readonly body: WireRequest; readonly warnings: ReadonlyArray<string> } => {
  const maxTokens = options.maxOutputTokens ?? request.maxOutputTokens ?? DEFAULT_MAX_TOKENS
  const { messages, system, warnings } = toWireMessages(request.messages)
  const effort = request.thinking
  // Anthropic refuses a tool loop that continues with thinking on when the assistant turn that
  // opened it has no thinking block: so mid-loop, thinking stays on only if its blocks came back
  // (they do when this adapter produced them; not in transcripts written before they were kept).
  const loopWithoutThinking = request.messages.at(-1)?.role === "tool" &&
    !hasThinking(messages.findLast((m) => m.role === "assistant"))
  const budget = effort === undefined || effort === "off" || loopWithoutThinking
    ? 0
    : Math.min(THINKING_BUDGET[effort], maxTokens - 1024)
  const thinking = budget >= 1024
  const body: WireRequest = {
    model,
    max_tokens: maxTokens,
    // With thinking off the blocks are left out: a plain conversation, as before they were kept.
    messages: thinking ? messages : withoutThinking(messages),
    stream: true,
    ...(system !== undefined ? { system } : {}),
    ...(request.tools.length > 0
      ? { tools: request.tools.map((t): WireTool => ({ name: t.name, description: t.description, input_schema: t.parameters })) }
      : {}),
    ...(thinking ? { thinking: { type: "enabled", budget_tokens: budget } } : {}),
    // Anthropic does not accept a temperature together with thinking.
    ...(request.temperature !== undefined && !thinking ? { temperature: request.temperature } : {})
  }
  return { body, warnings }
}

const OptNumber = Schema.optional(Schema.NullOr(Schema.Number))
const Usage = Schema.Struct({
  input_tokens: OptNumber,
  output_tokens: OptNumber,
  cache_creation_input_tokens: OptNumber,
  cache_read_input_tokens: OptNumber
})
const OptUsage = Schema.optional(Schema.NullOr(Usage))

/** One streamed event; unknown event types decode too and are ignored. */
export const StreamEvent = Schema.Struct({
  type: Schema.String,
  index: OptNumber,
  message: Schema.optional(Schema.Struct({ usage: OptUsage })),
  content_block: Schema.optional(Schema.Struct({
    type: Schema.String,
    id: Schema.optional(Schema.String),
    name: Schema.optional(Schema.String),
    input: Schema.optional(Schema.Unknown),
    text: Schema.optional(Schema.String),
    thinking: Schema.optional(Schema.String),
    signature: Schema.optional(Schema.String),
    data: Schema.optional(Schema.String)
  })),
  delta: Schema.optional(Schema.Struct({
    type: Schema.optional(Schema.String),
    text: Schema.optional(Schema.String),
    thinking: Schema.optional(Schema.String),
    signature: Schema.optional(Schema.String),
    partial_json: Schema.optional(Schema.String),
    stop_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: OptUsage,
  error: Schema.optional(Schema.Struct({ type: Schema.optional(Schema.String), message: Schema.optional(Schema.String) }))
})
export type StreamEvent = typeof StreamEvent.Type

/** Decodes one SSE data payload (already JSON-parsed), or fails with `BadResponse`. */
export const decodeStreamEvent = makeEventDecoder(PROVIDER, StreamEvent, "stream event")

/** Anthropic's `stop_reason` in the seam's vocabulary; unknown values become `other`. */
export const mapStopReason = (reason: string): FinishReason => {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "tool_use":
      return "tool-calls"
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
    case "refusal":
      return "content-filter"
    default:
      return "other"
  }
}

/** An in-stream `error` event (e.g. `overloaded_error`) as the reason a caller can act on. */
export const streamErrorOf = (error: StreamEvent["error"]): LlmError => {
  const type = error?.type ?? "unknown_error"
  const message = error?.message ?? type
  const reason: LlmErrorReason = type === "overloaded_error" || type === "api_error"
    ? "ServerError"
    : type === "rate_limit_error"
    ? "RateLimited"
    : type === "authentication_error" || type === "permission_error"
    ? "Authentication"
    : isContextOverflowText(message)
    ? "ContextOverflow"
    : type === "invalid_request_error"
    ? "InvalidRequest"
    : "BadResponse"
  return new LlmError({ reason, provider: PROVIDER, detail: `${type} in stream: ${message}`, retryable: isRetryableReason(reason) })
}

interface OpenBlock {
  readonly id: string
  readonly name: string
  json: string
  readonly initial: unknown
}

/** A thinking block being streamed: its text and signature arrive in deltas. */
interface OpenThinking {
  text: string
  signature: string
  readonly redactedData?: string | undefined
}

const inputTokensOf = (usage: typeof Usage.Type): number =>
  (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)

/** Of the input tokens, those read from and written to the prompt cache (priced differently). */
const cacheOf = (usage: typeof Usage.Type) => ({ read: usage.cache_read_input_tokens ?? 0, write: usage.cache_creation_input_tokens ?? 0 })

/**
 * Folds events into parts. A tool call is released whole at its `content_block_stop`;
 * the finish part at `message_stop`. A stream that ends before `message_stop` is an
 * error: Anthropic always sends it, so its absence means a cut-off answer.
 */
export const makeEventParser = () => {
  const blocks = new Map<number, OpenBlock>()
  const thinking = new Map<number, OpenThinking>()
  let inputTokens = 0
  let outputTokens = 0
  let cache = { read: 0, write: 0 }
  let reason: FinishReason = "stop"
  let finished = false

  const push = (event: StreamEvent): Effect.Effect<ReadonlyArray<StreamPart>, LlmError> => {
    const index = event.index ?? 0
    switch (event.type) {
      case "message_start": {
        const usage = event.message?.usage
        if (usage) {
          inputTokens = inputTokensOf(usage)
          cache = cacheOf(usage)
          outputTokens = usage.output_tokens ?? outputTokens
        }
        return Effect.succeed([])
      }
      case "content_block_start": {
        const block = event.content_block
        if (block?.type === "tool_use") {
          blocks.set(index, { id: block.id ?? "", name: block.name ?? "", json: "", initial: block.input })
        } else if (block?.type === "thinking") {
          thinking.set(index, { text: block.thinking ?? "", signature: block.signature ?? "" })
        } else if (block?.type === "redacted_thinking") {
          thinking.set(index, { text: "", signature: "", redactedData: block.data ?? "" })
        } else if (block?.type === "text" && Predicate.isString(block.text) && block.text !== "") {
          return Effect.succeed([{ type: "text-delta", text: block.text }])
        }
        return Effect.succeed([])
      }
      case "content_block_delta": {
        const delta = event.delta
        if (delta?.type === "text_delta" && Predicate.isString(delta.text) && delta.text !== "") {
          return Effect.succeed([{ type: "text-delta", text: delta.text }])
        }
        if (delta?.type === "input_json_delta" && Predicate.isString(delta.partial_json)) {
          const block = blocks.get(index)
          if (block) block.json += delta.partial_json
        }
        const open = thinking.get(index)
        if (open !== undefined && delta?.type === "thinking_delta" && Predicate.isString(delta.thinking) && delta.thinking !== "") {
          open.text += delta.thinking
          return Effect.succeed([{ type: "reasoning-delta", text: delta.thinking }])
        }
        if (open !== undefined && delta?.type === "signature_delta" && Predicate.isString(delta.signature)) {
          open.signature += delta.signature
        }
        return Effect.succeed([]) // citations and later delta types: not part of our vocabulary
      }
      case "content_block_stop": {
        const open = thinking.get(index)
        if (open !== undefined) {
          thinking.delete(index)
          return Effect.succeed([{
            type: "reasoning",
            part: {
              type: "reasoning",
              text: open.text,
              provider: REASONING_PROVIDER,
              ...(open.redactedData !== undefined ? { redactedData: open.redactedData } : {}),
              ...(open.signature !== "" ? { signature: open.signature } : {})
            }
          }])
        }
        const block = blocks.get(index)
        if (block === undefined) return Effect.succeed([])
        blocks.delete(index)
        const initial = Predicate.isObject(block.initial) && Object.keys(block.initial).length > 0
          ? JSON.stringify(block.initial)
          : "{}"
        const args = block.json.trim() === "" ? initial : block.json
        return Effect.succeed([{ type: "tool-call", call: { id: block.id, name: block.name, arguments: args } }])
      }
      case "message_delta": {
        const stop = event.delta?.stop_reason
        if (Predicate.isString(stop)) reason = mapStopReason(stop)
        if (event.usage) {
          if (Predicate.isNumber(event.usage.output_tokens)) outputTokens = event.usage.output_tokens
          // Newer API versions repeat cumulative input usage here.
          if (Predicate.isNumber(event.usage.input_tokens)) {
            inputTokens = inputTokensOf(event.usage)
            cache = cacheOf(event.usage)
          }
        }
        return Effect.succeed([])
      }
      case "message_stop":
        if (finished) return Effect.succeed([])
        finished = true
        return Effect.succeed([{ type: "finish", reason, usage: makeUsage(inputTokens, outputTokens, cache) }])
      case "error":
        return Effect.fail(streamErrorOf(event.error))
      default:
        return Effect.succeed([]) // ping and event types added later
    }
  }

  const end = (): Effect.Effect<ReadonlyArray<StreamPart>, LlmError> =>
    finished
      ? Effect.succeed([])
      : Effect.fail(
        new LlmError({
          reason: "BadResponse",
          provider: PROVIDER,
          detail: "stream ended before message_stop",
          retryable: false
        })
      )

  return { push, end }
}
