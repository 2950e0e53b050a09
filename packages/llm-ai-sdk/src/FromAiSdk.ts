import type { LanguageModelV2, LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider"
import { Http, LanguageModel, LlmError } from "@dsh/llm"
import { Clock, Duration, Effect, Stream } from "effect"
import { badResponse, type MappedError, toLlmError } from "./internal/errors.ts"
import { makeTranslator } from "./internal/parts.ts"
import { type SpecVersion, toCallOptions } from "./internal/prompt.ts"

/** Any AI SDK language model: AI SDK 5 providers are V2, AI SDK 6 V3, AI SDK 7 V4. */
export type AiSdkLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4

export interface FromAiSdkOptions {
  /**
   * The name the model reports as `provider` and writes into `ReasoningPart.provider`
   * (only reasoning with this name goes back to it). Default: the model's own `provider`.
   */
  readonly provider?: string | undefined
  /** Caps every request's output (wins over the request's `maxOutputTokens`). */
  readonly maxOutputTokens?: number | undefined
}

const DEFAULT_IDLE_TIMEOUT: Duration.Input = "5 minutes"

const versionOf = (model: AiSdkLanguageModel): SpecVersion | undefined => {
  const v = (model as { readonly specificationVersion?: unknown }).specificationVersion
  return v === "v2" || v === "v3" || v === "v4" ? v : undefined
}

/**
 * Turns an AI SDK language model (`LanguageModelV2`, `V3` or `V4`) into a dsh model. Each
 * request calls `doStream` with an `AbortSignal` that is aborted when the stream ends or is
 * interrupted; calls the provider marks retryable (`APICallError.isRetryable`) are retried
 * per `RetryPolicy`, after the provider's `retry-after` when it sent one. Anything a provider
 * throws, rejects with or streams badly is a failed call with an `LlmError`, never a defect.
 */
export const fromAiSdk = (model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): LanguageModel.LanguageModelShape => {
  const provider = options.provider ?? (typeof model.provider === "string" ? model.provider : "ai-sdk")
  const modelId = typeof model.modelId === "string" ? model.modelId : ""
  const version = versionOf(model)

  const stream = (request: LanguageModel.ModelRequest): Stream.Stream<LanguageModel.StreamPart, LlmError.LlmError> =>
    Stream.unwrap(Effect.gen(function*() {
      if (version === undefined) {
        return yield* new LlmError.LlmError({
          reason: "Configuration",
          provider,
          detail: `not an AI SDK language model of specification v2, v3 or v4 (got ${String((model as { specificationVersion?: unknown }).specificationVersion)})`,
          retryable: false
        })
      }
      const policy = yield* Http.RetryPolicy
      const idle = Duration.fromInputUnsafe(policy.idleTimeout ?? DEFAULT_IDLE_TIMEOUT)
      const controller = yield* Effect.acquireRelease(
        Effect.sync(() => new AbortController()),
        (c) => Effect.sync(() => c.abort())
      )
      const built = toCallOptions(request, {
        version,
        provider,
        maxOutputTokens: options.maxOutputTokens,
        abortSignal: controller.signal
      })
      const silent = () => new LlmError.LlmError({ reason: "Network", provider, detail: `no answer for ${Duration.format(idle)}`, retryable: true })

      // An async wrapper turns a synchronous throw inside `doStream` into a rejection.
      const callOnce: Effect.Effect<{ readonly stream: ReadableStream<unknown> }, MappedError> = Effect.tryPromise({
        try: async () => (await (model.doStream as (o: unknown) => PromiseLike<{ stream: ReadableStream<unknown> }>)(built.options)),
        catch: (e) => toLlmError(provider, e, Date.now())
      }).pipe(
        Effect.flatMap((r) =>
          typeof r === "object" && r !== null && r.stream instanceof ReadableStream
            ? Effect.succeed(r)
            : Effect.fail<MappedError>({ error: badResponse(provider, "doStream returned no ReadableStream") })
        ),
        Effect.timeoutOrElse({ duration: idle, orElse: () => Effect.fail<MappedError>({ error: silent() }) })
      )
      const base = Duration.toMillis(Duration.fromInputUnsafe(policy.baseDelay))
      const max = Duration.toMillis(Duration.fromInputUnsafe(policy.maxDelay))
      const attempt = (n: number): Effect.Effect<{ readonly stream: ReadableStream<unknown> }, LlmError.LlmError> =>
        callOnce.pipe(Effect.catch((m) =>
          m.error.retryable && n < policy.maxRetries
            // The provider's `retry-after` wins over our backoff: it knows when it will answer.
            ? Effect.sleep(Duration.millis(m.retryAfterMs ?? Math.min(max, base * 2 ** n))).pipe(Effect.andThen(attempt(n + 1)))
            : Effect.fail(m.error)
        ))
      const result = yield* attempt(0)
      const now = yield* Clock.currentTimeMillis
      const translator = makeTranslator(provider, provider, () => now)
      const warnings = Stream.fromIterable(built.warnings.map((message): LanguageModel.StreamPart => ({ type: "warning", message })))
      // One sleeping fiber per call watches for silence: a timeout per pull (`Stream.timeoutOrElse`)
      // costs a timer per part, which cut throughput on long streams by more than half.
      const activity = { parts: 0 }
      // Silence is a whole idle period in which no part arrived (detected within 1–2 periods).
      const watch: Effect.Effect<never, LlmError.LlmError> = Effect.gen(function*() {
        while (true) {
          const seen = activity.parts
          yield* Effect.sleep(idle)
          if (activity.parts === seen) return yield* silent()
        }
      })
      const parts = Stream.fromReadableStream({
        evaluate: () => result.stream,
        onError: (e) => toLlmError(provider, e, Date.now()).error
      }).pipe(
        Stream.interruptWhen(watch),
        Stream.mapEffect((part) => {
          activity.parts++
          const out = translator.push(part)
          return out instanceof LlmError.LlmError ? Effect.fail(out) : Effect.succeed(out)
        }),
        Stream.concat(Stream.suspend(() => {
          const out = translator.end()
          return out instanceof LlmError.LlmError ? Stream.fail(out) : Stream.make(out)
        })),
        Stream.flattenIterable
      )
      return Stream.concat(warnings, parts)
    }))

  return LanguageModel.make({ provider, model: modelId, stream })
}
