/**
 * Trace context that crosses a process: the W3C `traceparent` of the current span (sent to a
 * child in ACP `_meta`, the SDK request, the cluster message and `TRACEPARENT`), and the span a
 * child process continues from. Cheap and exporter-free: without an exporter the ids are
 * Effect's own and nothing is sent anywhere.
 */
import { Context, Effect, Option, Tracer } from "effect"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Headers from "effect/http/Headers"

/** The key under which a dsh parent puts its trace context in ACP `_meta` and SDK params. */
export const TRACEPARENT_META = "traceparent"

/**
 * Whether spans carry prompt and completion text (`gen_ai.input.messages`, …): off unless the
 * harness turns it on (`DSH_OTEL_CAPTURE_CONTENT=1` in the CLI), since they hold user data.
 */
export const CaptureContent = Context.Reference<boolean>("@dsh/core/CaptureContent", { defaultValue: () => false })

/** The current span as a W3C `traceparent`, if there is one. */
export const currentTraceparent: Effect.Effect<string | undefined> = Effect.currentSpan.pipe(
  Effect.map((span) => HttpTraceContext.toHeaders(span).traceparent),
  Effect.orElseSucceed(() => undefined)
)

/** A received `traceparent` as the external span to continue from; `undefined` when absent or malformed. */
export const parseTraceparent = (value: unknown): Tracer.ExternalSpan | undefined =>
  typeof value !== "string" ? undefined : Option.getOrUndefined(HttpTraceContext.w3c(Headers.fromInput({ traceparent: value })))

/** Runs `effect` under the received trace context (its spans become the remote span's children); as is without one. */
export const withTraceparent = (value: unknown) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const parent = parseTraceparent(value)
  return parent === undefined ? effect : Effect.withParentSpan(effect, parent)
}

/**
 * Sends what the tracer has buffered, bounded; a no-op without an exporter. A served turn (ACP,
 * SDK) calls it before it answers, so a child's spans are out before its parent closes it.
 */
export const TelemetryFlush = Context.Reference<Effect.Effect<void>>("@dsh/core/TelemetryFlush", { defaultValue: () => Effect.void })

/** Runs the current `TelemetryFlush`. */
export const flushTelemetry: Effect.Effect<void> = Effect.gen(function*() {
  const flush = yield* TelemetryFlush
  yield* flush
})
