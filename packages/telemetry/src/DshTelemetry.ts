import { Trace, Version } from "@dsh/core"
import { ConfigProvider, Duration, Effect, Layer, Logger, LogLevel, Ref, Tracer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as OtlpExporter from "effect/observability/OtlpExporter"
import * as OtlpLogger from "effect/observability/OtlpLogger"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"
import { optionsFromEnv, signalUrl } from "./Environment.ts"
import type { TelemetryOptions } from "./TelemetryOptions.ts"

export type { TelemetryOptions } from "./TelemetryOptions.ts"


/**
 * Export is best effort and must never hold or fail a run: one request is bounded by
 * `timeout` (a timeout is a transport failure: Effect's exporter retries it at most three
 * times, then drops the batch and pauses a minute), the last flush by `shutdownTimeout`, and
 * the first failure says so once, as a warning in the harness's log.
 */
const boundedClient = (timeout: Duration.Input) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const warned = yield* Ref.make(false)
      return HttpClient.transform(client, (response, request) =>
        response.pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.fail(new HttpClientError.HttpClientError({
                reason: new HttpClientError.TransportError({ request, description: `no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}` })
              }))
          }),
          Effect.tapError((error) =>
            Ref.getAndSet(warned, true).pipe(Effect.flatMap((already) =>
              already ? Effect.void : Effect.logWarning(`telemetry: export to ${request.url} failed (${error.message}); spans and logs are dropped, the run goes on`)
            ))
          )
        ))
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))

/** Only warnings and worse reach the logs exporter (debug chatter stays in the local log). */
const warningsOnly = <M, O>(logger: Logger.Logger<M, O>): Logger.Logger<M, O | undefined> =>
  Logger.make((options) => (LogLevel.isGreaterThanOrEqualTo(options.logLevel, "Warn") ? logger.log(options) : undefined))

/**
 * Exports the traces of every span below it (dsh's: `invoke_agent`, `chat`, `execute_tool`,
 * following the OpenTelemetry GenAI conventions) over OTLP/HTTP, and its warnings as logs, in
 * batches; the last batch is flushed when the layer's scope closes, within `shutdownTimeout`.
 * The existing loggers stay. A harness with its own tracer provides that instead and needs
 * only `CaptureContent` from `@dsh/core`.
 */
export const layer = (options: TelemetryOptions): Layer.Layer<never> => {
  const tracesUrl = signalUrl(options, "traces")
  const logsUrl = signalUrl(options, "logs")
  const resource = {
    serviceName: options.serviceName ?? "dsh",
    serviceVersion: Version.VERSION,
    attributes: { ...options.resourceAttributes }
  }
  const headers = { ...options.headers }
  const exportInterval = options.exportInterval ?? Duration.seconds(1)
  const shutdownTimeout = options.shutdownTimeout ?? Duration.seconds(1)
  const tracer = tracesUrl === undefined
    ? Layer.empty
    : Layer.effect(Tracer.Tracer, OtlpTracer.make({ url: tracesUrl, resource, headers, exportInterval, shutdownTimeout, maxBatchSize: 512 }))
  const logger = logsUrl === undefined || options.logs === false
    ? Layer.empty
    : Logger.layer([Effect.map(OtlpLogger.make({ url: logsUrl, resource, headers, exportInterval, shutdownTimeout, maxBatchSize: 512 }), warningsOnly)], {
      mergeWithExisting: true
    })
  // One flusher for both signals; a served turn flushes through `TelemetryFlush` before it answers.
  const flush = Layer.effect(
    Trace.TelemetryFlush,
    Effect.gen(function*() {
      const flusher = yield* OtlpExporter.Flusher
      return flusher.flush.pipe(Effect.timeoutOption(shutdownTimeout), Effect.asVoid)
    })
  )
  return Layer.mergeAll(
    Layer.mergeAll(tracer, logger, flush).pipe(
      Layer.provide(OtlpExporter.layerFlusher),
      Layer.provide(options.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
      Layer.provide(boundedClient(options.requestTimeout ?? Duration.seconds(2))),
      // The resource is what the options say, not what the process's environment adds.
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: {} })))
    ),
    Layer.succeed(Trace.CaptureContent, options.captureContent === true)
  ) as Layer.Layer<never>
}

/** The layer for the standard `OTEL_*` environment; an empty layer (nothing exported) when no endpoint is set. */
export const fromEnv = (env: Readonly<Record<string, string | undefined>>): Layer.Layer<never> => {
  const options = optionsFromEnv(env)
  return options === undefined ? Layer.empty : layer(options)
}

/** Whether the environment asks for export at all: a harness can skip loading this package otherwise. */
export const enabled = (env: Readonly<Record<string, string | undefined>>): boolean => optionsFromEnv(env) !== undefined

export { optionsFromEnv }
