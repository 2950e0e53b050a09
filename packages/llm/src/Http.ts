import { Context, Duration, Effect, Exit, Ref, Schedule, Schema, Stream } from "effect"
import type { IncomingMessage } from "node:http"
import { type EndpointOptions, resolveEndpoint } from "./Endpoint.ts"
import { makeSseDecoder, type SseEvent } from "./internal/sse.ts"
import { type LanguageModelShape, make as makeLanguageModel, type ModelRequest, type StreamPart } from "./LanguageModel.ts"
import { isContextOverflowText, isRetryableReason, LlmError, reasonForStatus } from "./LlmError.ts"
import type { ModelConfig } from "./ModelRegistry.ts"

export type { SseEvent } from "./internal/sse.ts"

export interface RetryPolicyShape {
  /** Retries after the first attempt; 0 disables retrying. */
  readonly maxRetries: number
  readonly baseDelay: Duration.Input
  readonly maxDelay: Duration.Input
  /**
   * How long a connection may stay silent (no headers, no stream bytes) before the call fails
   * with a `Network` error, so a stalled stream cannot hang a turn. Default 5 minutes.
   */
  readonly idleTimeout?: Duration.Input | undefined
}

/** How often and how patiently model calls are retried on 429, 5xx and network errors. */
export const RetryPolicy = Context.Reference<RetryPolicyShape>("@dsh/llm/RetryPolicy", {
  defaultValue: () => ({ maxRetries: 3, baseDelay: "500 millis", maxDelay: "8 seconds" })
})

const DEFAULT_IDLE_TIMEOUT: Duration.Input = "5 minutes"
/** Redirects that keep the method and the body (a 301/302/303 would turn the POST into a GET). */
const REDIRECTS = new Set([307, 308])
const MAX_REDIRECTS = 5

export interface HttpRequest {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/** The status and headers of an answer, with its body still unread. */
type Response = IncomingMessage

/** Reads a body to its end (the first 2,000 characters are kept for an error message). */
const errorBody = (response: Response): Effect.Effect<string> =>
  Effect.promise(async () => {
    let text = ""
    try {
      for await (const chunk of response) text += String(chunk)
    } catch {
      // a body cut short: what arrived is still the best description
    }
    return text
  }).pipe(Effect.map((t) => t.slice(0, 2000)))

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

/**
 * POSTs with `node:http`, or `node:https` for an https URL, loaded on first use. Not `fetch`:
 * Node's first `fetch` loads undici and with it http2, tls, zlib, worker_threads and more
 * (~80 ms of a CLI's start-up, measured in the design note), while `node:http` loads in ~10 ms.
 * Like `fetch`, it follows 307/308 redirects and gives up on a connection silent for too long.
 */
const send = (request: HttpRequest, signal: AbortSignal, idleMs: number, url = new URL(request.url), hops = 0): Promise<Response> =>
  new Promise<Response>((resolve, reject) => {
    const body = Buffer.from(JSON.stringify(request.body))
    let response: Response | undefined
    const client = url.protocol === "https:" ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http")
    const req = client.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(body.length), ...request.headers },
      signal,
      timeout: idleMs
    }, (res) => {
      response = res
      resolve(res)
    })
    // Silent too long: both ends fail with the reason (a stream being read says why it broke).
    req.once("timeout", () => {
      const silent = new Error(`no data from the server for ${idleMs / 1000} s`)
      response?.destroy(silent)
      req.destroy(silent)
    })
    req.on("error", reject)
    req.end(body)
  }).then((response) => {
    const location = response.headers.location
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined || hops >= MAX_REDIRECTS) return response
    response.resume()
    return send(request, signal, idleMs, new URL(location, url), hops + 1)
  })

/** One attempt: POST and return the response once its status is known to be 2xx. */
const attempt = (request: HttpRequest, signal: AbortSignal, idleMs: number) =>
  Effect.tryPromise({
    try: () => send(request, signal, idleMs),
    catch: (cause) =>
      new LlmError({
        reason: "Network",
        provider: request.provider,
        detail: `${request.url}: ${cause instanceof Error ? cause.message : String(cause)}`,
        retryable: true
      })
  }).pipe(
    Effect.flatMap((response) => {
      const status = response.statusCode ?? 0
      if (status >= 200 && status < 300) return Effect.succeed(response)
      return errorBody(response).pipe(Effect.flatMap((body) => {
        const reason = reasonForStatus(status, body)
        return Effect.fail(
          new LlmError({
            reason,
            provider: request.provider,
            detail: describeBody(body),
            status,
            retryable: isRetryableReason(reason)
          })
        )
      }))
    })
  )

/** How long a response whose reader is done may take to end before it is aborted. */
const DRAIN_MS = 2_000

const drainOrAbort = (response: Response, controller: AbortController): void => {
  if (response.complete) return
  const timer = setTimeout(() => controller.abort(), DRAIN_MS).unref()
  response.once("end", () => clearTimeout(timer)).once("close", () => clearTimeout(timer)).resume()
}

/**
 * POSTs a streaming request and yields its server-sent events. Failures before the first
 * byte (429, 5xx, network) are retried with exponential backoff per {@link RetryPolicy};
 * a failure mid-stream is not retried, since part of the answer was already delivered.
 * Interrupting the stream aborts the HTTP request.
 */
export const postSse = (request: HttpRequest): Stream.Stream<SseEvent, LlmError> =>
  Stream.unwrap(Effect.gen(function*() {
    const policy = yield* RetryPolicy
    // Interrupted or failed: the request is aborted. Ended by its reader (an adapter stops at
    // `[DONE]`, a moment before the response ends): the rest is drained, and aborted only if it
    // does not end soon. Aborting a response that is as good as over would destroy the
    // keep-alive socket the next request could reuse, and build two errors with stack traces.
    const received = yield* Ref.make<Response | undefined>(undefined)
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (c, exit) => Effect.map(Ref.get(received), (r) => Exit.isSuccess(exit) && r !== undefined ? drainOrAbort(r, c) : c.abort())
    )
    const schedule = Schedule.exponential(policy.baseDelay).pipe(
      Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.fromInputUnsafe(policy.maxDelay))))
    )
    const idleMs = Duration.toMillis(Duration.fromInputUnsafe(policy.idleTimeout ?? DEFAULT_IDLE_TIMEOUT))
    const response = yield* attempt(request, controller.signal, idleMs).pipe(
      Effect.retry({ schedule, times: policy.maxRetries, while: (e) => e.retryable })
    )
    yield* Ref.set(received, response)
    const contentType = response.headers["content-type"] ?? ""
    if (/json/i.test(contentType) && !/event-stream/i.test(contentType)) {
      // The server ignored `stream: true` (or answered an error with status 200): say so
      // instead of decoding nothing and reporting an empty answer.
      const detail = describeBody(yield* errorBody(response))
      return Stream.fail(
        new LlmError({
          reason: isContextOverflowText(detail) ? "ContextOverflow" : "BadResponse",
          provider: request.provider,
          detail: `expected an event stream, got ${contentType}: ${detail}`,
          status: response.statusCode,
          retryable: false
        })
      )
    }
    const decoder = makeSseDecoder()
    const text = new TextDecoder()
    return Stream.fromAsyncIterable(
      // Not destroyed when the reader stops early: the finalizer above decides.
      response.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>,
      (cause) =>
        new LlmError({
          reason: "Network",
          provider: request.provider,
          detail: `stream broke: ${cause instanceof Error ? cause.message : String(cause)}`,
          retryable: false
        })
    ).pipe(
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

/** Turns one provider's decoded stream events into stream parts; one per request, since it keeps state. */
export interface StreamEventParser<Event> {
  readonly push: (event: Event) => Effect.Effect<ReadonlyArray<StreamPart>, LlmError>
  /** At the end of the stream: what is still pending, or a failure if the stream was cut short. */
  readonly end: () => Effect.Effect<ReadonlyArray<StreamPart>, LlmError>
}

/** What sets one SSE-streaming HTTP adapter apart from another. */
export interface SseModelOptions<Event> {
  readonly endpoint: EndpointOptions
  /** The provider's headers, the key among them (`accept: text/event-stream` is added). */
  readonly headers: (apiKey: string) => Readonly<Record<string, string>>
  /** The wire body of a request, and what it could not send (streamed first, as `warning` parts). */
  readonly plan: (
    model: string,
    request: ModelRequest,
    options: { readonly maxOutputTokens?: number | undefined }
  ) => { readonly body: unknown; readonly warnings: ReadonlyArray<string> }
  /** Validates one JSON-parsed event payload, e.g. a {@link makeEventDecoder}. */
  readonly decode: (json: unknown) => Effect.Effect<Event, LlmError>
  readonly makeParser: () => StreamEventParser<Event>
  /** An event that marks the end of the stream and carries no payload (OpenAI's `[DONE]`). */
  readonly isEndMarker?: ((event: SseEvent) => boolean) | undefined
}

/**
 * The `create` of an HTTP adapter that streams server-sent events: resolves the endpoint, then
 * each request is planned, its warnings streamed, and its events posted with {@link postSse},
 * parsed, decoded and fed to a fresh parser.
 */
export const makeSseModel = <Event>(
  model: string,
  config: ModelConfig,
  options: SseModelOptions<Event>
): Effect.Effect<LanguageModelShape, LlmError> =>
  Effect.map(resolveEndpoint(model, config, options.endpoint), ({ apiKey, model: name, url }) => {
    const provider = options.endpoint.provider
    const isEndMarker = options.isEndMarker ?? (() => false)
    return makeLanguageModel({
      provider,
      model: name,
      stream: (request) =>
        Stream.suspend(() => {
          const parser = options.makeParser()
          const plan = options.plan(name, request, { maxOutputTokens: config.maxOutputTokens })
          const warnings = Stream.fromIterable(plan.warnings.map((message): StreamPart => ({ type: "warning", message })))
          return Stream.concat(warnings, postSse({
            provider,
            url,
            headers: { ...options.headers(apiKey), accept: "text/event-stream" },
            body: plan.body
          }).pipe(
            Stream.takeWhile((event) => !isEndMarker(event)),
            Stream.mapEffect((event) =>
              parseJsonEvent(provider, event.data).pipe(
                Effect.flatMap(options.decode),
                Effect.flatMap(parser.push)
              )
            ),
            Stream.concat(Stream.fromEffect(Effect.suspend(parser.end))),
            Stream.flatMap((parts) => Stream.fromIterable(parts))
          ))
        })
    })
  })
