import { Context, Duration, Effect, Schedule, Schema, Stream } from "effect"
import { makeSseDecoder, type SseEvent } from "./internal/sse.ts"
import { isContextOverflowText, isRetryableReason, LlmError, reasonForStatus } from "./LlmError.ts"

export type { SseEvent } from "./internal/sse.ts"

export interface RetryPolicyShape {
  /** Retries after the first attempt; 0 disables retrying. */
  readonly maxRetries: number
  readonly baseDelay: Duration.Input
  readonly maxDelay: Duration.Input
}

/** How often and how patiently model calls are retried on 429, 5xx and network errors. */
export const RetryPolicy = Context.Reference<RetryPolicyShape>("@dsh/llm/RetryPolicy", {
  defaultValue: () => ({ maxRetries: 3, baseDelay: "500 millis", maxDelay: "8 seconds" })
})

export interface HttpRequest {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

const errorBody = (response: Response): Effect.Effect<string> =>
  Effect.promise(() => response.text().catch(() => "")).pipe(Effect.map((t) => t.slice(0, 2000)))

const describeBody = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const inner = typeof parsed.error === "string" ? parsed.error : parsed.error?.message ?? parsed.message
    if (typeof inner === "string" && inner !== "") return inner
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.trim() === "" ? "empty response body" : body.trim()
}

/** One attempt: POST and return the response once its status is known to be 2xx. */
const attempt = (request: HttpRequest, signal: AbortSignal) =>
  Effect.tryPromise({
    try: () =>
      fetch(request.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...request.headers },
        body: JSON.stringify(request.body),
        signal
      }),
    catch: (cause) =>
      new LlmError({
        reason: "Network",
        provider: request.provider,
        detail: `${request.url}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`,
        retryable: true
      })
  }).pipe(
    Effect.flatMap((response) => {
      if (response.ok) return Effect.succeed(response)
      return errorBody(response).pipe(Effect.flatMap((body) => {
        const reason = reasonForStatus(response.status, body)
        return Effect.fail(
          new LlmError({
            reason,
            provider: request.provider,
            detail: describeBody(body),
            status: response.status,
            retryable: isRetryableReason(reason)
          })
        )
      }))
    })
  )

/**
 * POSTs a streaming request and yields its server-sent events. Failures before the first
 * byte (429, 5xx, network) are retried with exponential backoff per {@link RetryPolicy};
 * a failure mid-stream is not retried, since part of the answer was already delivered.
 * Interrupting the stream aborts the HTTP request.
 */
export const postSse = (request: HttpRequest): Stream.Stream<SseEvent, LlmError> =>
  Stream.unwrap(Effect.gen(function*() {
    const policy = yield* RetryPolicy
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (c) => Effect.sync(() => c.abort())
    )
    const schedule = Schedule.exponential(policy.baseDelay).pipe(
      Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.fromInputUnsafe(policy.maxDelay))))
    )
    const response = yield* attempt(request, controller.signal).pipe(
      Effect.retry({ schedule, times: policy.maxRetries, while: (e) => e.retryable })
    )
    const contentType = response.headers.get("content-type") ?? ""
    if (/json/i.test(contentType) && !/event-stream/i.test(contentType)) {
      // The server ignored `stream: true` (or answered an error with status 200): say so
      // instead of decoding nothing and reporting an empty answer.
      const detail = describeBody(yield* errorBody(response))
      return Stream.fail(
        new LlmError({
          reason: isContextOverflowText(detail) ? "ContextOverflow" : "BadResponse",
          provider: request.provider,
          detail: `expected an event stream, got ${contentType}: ${detail}`,
          status: response.status,
          retryable: false
        })
      )
    }
    const body = response.body
    if (body === null) {
      return Stream.fail(
        new LlmError({ reason: "BadResponse", provider: request.provider, detail: "response has no body", retryable: false })
      )
    }
    const decoder = makeSseDecoder()
    const text = new TextDecoder()
    return Stream.fromReadableStream({
      evaluate: () => body,
      onError: (cause) =>
        new LlmError({
          reason: "Network",
          provider: request.provider,
          detail: `stream broke: ${cause instanceof Error ? cause.message : String(cause)}`,
          retryable: false
        })
    }).pipe(
      Stream.map((bytes) => decoder.push(text.decode(bytes, { stream: true }))),
      // Flush the text decoder too: a stream may end inside a multi-byte character.
      Stream.concat(Stream.sync(() => [...decoder.push(text.decode()), ...decoder.end()])),
      Stream.flatMap((events) => Stream.fromIterable(events))
    )
  }))

/** Parses one SSE data payload as JSON, or fails with `BadResponse`. */
export const parseJsonEvent = (provider: string, data: string): Effect.Effect<unknown, LlmError> =>
  Effect.try({
    try: () => JSON.parse(data) as unknown,
    catch: () =>
      new LlmError({ reason: "BadResponse", provider, detail: `malformed stream event: ${data.slice(0, 200)}`, retryable: false })
  })

/**
 * A decoder for one provider's stream events: validates a parsed payload against the
 * provider's schema, or fails with `BadResponse` naming what was expected.
 */
export const makeEventDecoder = <A>(provider: string, schema: Schema.Decoder<A>, what: string) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (json: unknown): Effect.Effect<A, LlmError> =>
    decode(json).pipe(Effect.mapError((error) =>
      new LlmError({ reason: "BadResponse", provider, detail: `unexpected ${what}: ${error.message.slice(0, 300)}`, retryable: false })
    ))
}
