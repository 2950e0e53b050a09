/**
 * @dsh/telemetry: dsh's spans (`invoke_agent`, `chat`, `execute_tool`, in the OpenTelemetry
 * GenAI conventions) exported over OTLP/HTTP with Effect's own exporter, configured from the
 * standard `OTEL_*` environment or from options. Export is batched, bounded and dropped on
 * failure: it never holds or fails a run.
 */
export * as DshTelemetry from "./DshTelemetry.ts"
export * as Environment from "./Environment.ts"
export * as FileLog from "./FileLog.ts"
export * as PinoLogger from "./PinoLogger.ts"
export * as TelemetryOptions from "./TelemetryOptions.ts"
