import { LlmError } from "@dsh/llm"

/** Keeps a provider's message to one short line: CLI errors and logs are one line each. */
export const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

interface ApiCallErrorLike {
  readonly message: string
  readonly statusCode?: number | undefined
  readonly responseHeaders?: Readonly<Record<string, string>> | undefined
  readonly responseBody?: string | undefined
  readonly isRetryable: boolean
}

/**
 * `APICallError.isInstance` checks a `Symbol.for` marker, so it recognises the errors of every
 * `@ai-sdk/provider` copy in an app; this is the same check without importing one of them.
 */
const isApiCallError = (error: unknown): error is ApiCallErrorLike =>
  typeof error === "object" && error !== null &&
  (error as Record<symbol, unknown>)[Symbol.for("vercel.ai.error.AI_APICallError")] === true

const errorName = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { name?: unknown }).name === "string"
    ? (error as { name: string }).name
    : ""

export const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : oneLine(safeJson(error))

const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** `retry-after-ms` or `retry-after` (seconds or an HTTP date) as milliseconds, when present. */
export const retryAfterMillis = (headers: Readonly<Record<string, string>> | undefined, now: number): number | undefined => {
  if (headers === undefined) return undefined
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  const ms = Number(lower["retry-after-ms"])
  if (lower["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return ms
  const value = lower["retry-after"]
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** An `LlmError` with the wait a provider asked for before the next attempt. */
export interface MappedError {
  readonly error: LlmError.LlmError
  readonly retryAfterMs?: number | undefined
}

const byName: Readonly<Record<string, LlmError.LlmErrorReason>> = {
  AI_LoadAPIKeyError: "Configuration",
  AI_LoadSettingError: "Configuration",
  AI_NoSuchModelError: "Configuration",
  AI_InvalidPromptError: "InvalidRequest",
  AI_InvalidArgumentError: "InvalidRequest",
  AI_UnsupportedFunctionalityError: "InvalidRequest",
  AI_TooManyEmbeddingValuesForCallError: "InvalidRequest",
  AI_InvalidResponseDataError: "BadResponse",
  AI_JSONParseError: "BadResponse",
  AI_TypeValidationError: "BadResponse",
  AI_EmptyResponseBodyError: "BadResponse"
}

/**
 * Maps whatever a provider threw, rejected with or put in an `error` part to an `LlmError`.
 * HTTP errors keep the provider's own retryability (`APICallError.isRetryable`).
 */
export const toLlmError = (provider: string, error: unknown, now: number): MappedError => {
  if (error instanceof LlmError.LlmError) return { error }
  if (isApiCallError(error)) {
    const status = error.statusCode
    const body = error.responseBody ?? ""
    const detail = oneLine(body === "" ? error.message : `${error.message}: ${body}`)
    const reason: LlmError.LlmErrorReason = status === undefined
      ? (LlmError.isContextOverflowText(detail) ? "ContextOverflow" : "Network")
      : LlmError.reasonForStatus(status, `${error.message} ${body}`)
    return {
      error: new LlmError.LlmError({
        reason,
        provider,
        detail,
        ...(status === undefined ? {} : { status }),
        retryable: error.isRetryable
      }),
      retryAfterMs: error.isRetryable ? retryAfterMillis(error.responseHeaders, now) : undefined
    }
  }
  const name = errorName(error)
  const message = oneLine(describe(error))
  const named = byName[name]
  if (named !== undefined) return { error: new LlmError.LlmError({ reason: named, provider, detail: message, retryable: false }) }
  if (LlmError.isContextOverflowText(message)) return { error: new LlmError.LlmError({ reason: "ContextOverflow", provider, detail: message, retryable: false }) }
  // fetch failures outside an APICallError (a provider with its own transport): the network.
  if (name === "TypeError" && /fetch failed|network|ECONN|socket/i.test(message)) {
    return { error: new LlmError.LlmError({ reason: "Network", provider, detail: message, retryable: true }) }
  }
  return {
    error: new LlmError.LlmError({ reason: "BadResponse", provider, detail: `${name === "" ? "" : `${name}: `}${message}`, retryable: false })
  }
}

export const badResponse = (provider: string, detail: string): LlmError.LlmError =>
  new LlmError.LlmError({ reason: "BadResponse", provider, detail: oneLine(detail), retryable: false })
