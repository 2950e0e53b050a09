import type { TelemetryOptions } from "./TelemetryOptions.ts"

type Env = Readonly<Record<string, string | undefined>>

/** `k1=v1,k2=v2` with percent-encoded parts (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES); malformed pairs are skipped. */
export const parsePairs = (value: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of (value ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    try {
      out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      // A bad escape loses that pair only.
    }
  }
  return out
}

const set = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value.trim())

/**
 * The standard OpenTelemetry exporter environment as options, or `undefined` when neither
 * `OTEL_EXPORTER_OTLP_ENDPOINT` nor `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (or
 * `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`). Signal-specific settings win over
 * the general ones, as the specification says; `DSH_OTEL_CAPTURE_CONTENT=1` adds prompt and
 * completion text to the spans.
 */
export const optionsFromEnv = (env: Env): TelemetryOptions | undefined => {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true" || env.OTEL_TRACES_EXPORTER?.toLowerCase() === "none") return undefined
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT)
  const traces = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (base === undefined && traces === undefined) return undefined
  const logs = set(env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)
  const protocol = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL)
  const resource = parsePairs(env.OTEL_RESOURCE_ATTRIBUTES)
  const serviceName = set(env.OTEL_SERVICE_NAME) ?? resource["service.name"]
  return {
    ...(base === undefined ? {} : { endpoint: base }),
    ...(traces === undefined ? {} : { tracesEndpoint: traces }),
    ...(logs === undefined ? {} : { logsEndpoint: logs }),
    protocol: protocol === "http/json" ? "http/json" : "http/protobuf",
    headers: { ...parsePairs(env.OTEL_EXPORTER_OTLP_HEADERS), ...parsePairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    ...(serviceName === undefined ? {} : { serviceName }),
    resourceAttributes: resource,
    logs: env.OTEL_LOGS_EXPORTER?.toLowerCase() !== "none",
    captureContent: env.DSH_OTEL_CAPTURE_CONTENT === "1" || env.DSH_OTEL_CAPTURE_CONTENT?.toLowerCase() === "true"
  }
}

/** Where a signal goes: its own endpoint as given, else the base endpoint plus `/v1/<signal>`. */
export const signalUrl = (options: TelemetryOptions, signal: "traces" | "logs"): string | undefined => {
  const own = signal === "traces" ? options.tracesEndpoint : options.logsEndpoint
  if (own !== undefined) return own
  if (options.endpoint === undefined) return undefined
  return `${options.endpoint.replace(/\/+$/, "")}/v1/${signal}`
}
