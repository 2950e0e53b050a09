/**
 * Anthropic's streamed Messages events (`message_start` … `message_stop`): decoding each one and
 * folding them back into `StreamPart`s. Kept free of HTTP so the parser can be tested event by event.
 */
import { Usage as CoreUsage } from "@dsh/core"
import { Http, type LanguageModel, LlmError } from "@dsh/llm"
import { Effect, Predicate, Schema } from "effect"
import { REASONING_PROVIDER } from "./content.ts"
import { PROVIDER } from "./wire.ts"

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
export const decodeStreamEvent = Http.makeEventDecoder(PROVIDER, StreamEvent, "stream event")

/** Anthropic's `stop_reason` in the seam's vocabulary; unknown values become `other`. */
export const mapStopReason = (reason: string): LanguageModel.FinishReason => {
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
export const streamErrorOf = (error: StreamEvent["error"]): LlmError.LlmError => {
  const type = error?.type ?? "unknown_error"
  const message = error?.message ?? type
  const reason: LlmError.LlmErrorReason = type === "overloaded_error" || type === "api_error"
    ? "ServerError"
    : type === "rate_limit_error"
    ? "RateLimited"
    : type === "authentication_error" || type === "permission_error"
    ? "Authentication"
    : LlmError.isContextOverflowText(message)
    ? "ContextOverflow"
    : type === "invalid_request_error"
    ? "InvalidRequest"
    : "BadResponse"
  return new LlmError.LlmError({ reason, provider: PROVIDER, detail: `${type} in stream: ${message}`, retryable: LlmError.isRetryableReason(reason) })
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
  let reason: LanguageModel.FinishReason = "stop"
  let finished = false

  const push = (event: StreamEvent): Effect.Effect<ReadonlyArray<LanguageModel.StreamPart>, LlmError.LlmError> => {
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
        return Effect.succeed([{ type: "finish", reason, usage: CoreUsage.make(inputTokens, outputTokens, cache) }])
      case "error":
        return Effect.fail(streamErrorOf(event.error))
      default:
        return Effect.succeed([]) // ping and event types added later
    }
  }

  const end = (): Effect.Effect<ReadonlyArray<LanguageModel.StreamPart>, LlmError.LlmError> =>
    finished
      ? Effect.succeed([])
      : Effect.fail(
        new LlmError.LlmError({
          reason: "BadResponse",
          provider: PROVIDER,
          detail: "stream ended before message_stop",
          retryable: false
        })
      )

  return { push, end }
}
