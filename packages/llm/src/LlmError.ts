import { Schema } from "effect"

/**
 * Why a model call failed. `retryable` reasons are retried a bounded number of times by
 * the HTTP helper before they surface; the others surface at once.
 */
export const LlmErrorReason = Schema.Literals([
  "Authentication",
  "RateLimited",
  "BadResponse",
  "ContextOverflow",
  "InvalidRequest",
  "ServerError",
  "Network",
  "Configuration"
])
export type LlmErrorReason = typeof LlmErrorReason.Type

export class LlmError extends Schema.TaggedError<LlmError>()("LlmError", {
  reason: LlmErrorReason,
  provider: Schema.String,
  detail: Schema.String,
  status: Schema.optional(Schema.Number),
  retryable: Schema.Boolean
}) {
  override get message(): string {
    const status = this.status === undefined ? "" : ` (HTTP ${this.status})`
    return `${this.provider}: ${this.reason}${status}: ${this.detail}`
  }
}

/**
 * Whether an error text says the prompt did not fit the model's context, in the words
 * of OpenAI (`context_length_exceeded`), Anthropic (`prompt is too long`), vLLM and
 * llama.cpp (`exceeds the available context size`).
 */
export const isContextOverflowText = (text: string): boolean =>
  /context[ _-]?(length|window|size)|exceed_context|too many tokens|maximum context|prompt is too long|input is too long/i
    .test(text)

/** Maps an HTTP status and body to the reason a caller can act on. */
export const reasonForStatus = (status: number, body: string): LlmErrorReason => {
  if (status === 401 || status === 403) return "Authentication"
  if (status === 429) return "RateLimited"
  if (status >= 500) return "ServerError"
  if (isContextOverflowText(body)) return "ContextOverflow"
  return "InvalidRequest"
}

export const isRetryableReason = (reason: LlmErrorReason): boolean =>
  reason === "RateLimited" || reason === "ServerError" || reason === "Network"
