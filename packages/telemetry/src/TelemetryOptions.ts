import type { Duration } from "effect"

/** Where and how dsh's traces (and warnings, as logs) are exported. */
export interface TelemetryOptions {
  /** The OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); `/v1/traces` and `/v1/logs` are appended. */
  readonly endpoint?: string | undefined
  /** The traces URL as is (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); wins over `endpoint`. */
  readonly tracesEndpoint?: string | undefined
  /** The logs URL as is (`OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`). */
  readonly logsEndpoint?: string | undefined
  /** `http/protobuf` (the default, as in the specification) or `http/json`. */
  readonly protocol?: "http/protobuf" | "http/json" | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** `service.name`; default `dsh`. */
  readonly serviceName?: string | undefined
  readonly resourceAttributes?: Readonly<Record<string, string>> | undefined
  /** Export warnings and errors as OTLP logs (default true). */
  readonly logs?: boolean | undefined
  /** Prompt and completion text on the spans (`gen_ai.input.messages`, …); default false. */
  readonly captureContent?: boolean | undefined
  /** How often a batch is sent; default 1 second. */
  readonly exportInterval?: Duration.Input | undefined
  /** The bound on one export request; default 2 seconds. */
  readonly requestTimeout?: Duration.Input | undefined
  /** How long the last flush may hold the end of a run; default 1 second. */
  readonly shutdownTimeout?: Duration.Input | undefined
}
