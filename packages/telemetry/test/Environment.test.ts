import { describe, expect, it } from "vitest"
import { DshTelemetry, Environment } from "../src/index.ts"

describe("the standard OTEL_* environment", () => {
  it("is off without an endpoint, whatever else is set", () => {
    expect(DshTelemetry.optionsFromEnv({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeUndefined()
    expect(DshTelemetry.enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBe(false)
    expect(DshTelemetry.enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBe(false)
    expect(DshTelemetry.enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false)
  })

  it("reads endpoint, protocol (protobuf by default), headers, service name and resource attributes", () => {
    const o = DshTelemetry.optionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t,x-a=1,broken",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,team=agents",
      DSH_OTEL_CAPTURE_CONTENT: "1"
    })!
    expect(o.protocol).toBe("http/protobuf")
    expect(o.headers).toEqual({ authorization: "Bearer t", "x-a": "1" })
    expect(o.serviceName).toBe("from-attrs")
    expect(o.resourceAttributes).toEqual({ "service.name": "from-attrs", team: "agents" })
    expect(o.captureContent).toBe(true)
    expect(Environment.signalUrl(o, "traces")).toBe("http://c:4318/v1/traces")
    expect(Environment.signalUrl(o, "logs")).toBe("http://c:4318/v1/logs")
    expect(DshTelemetry.optionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "svc" })).toMatchObject({ protocol: "http/json", serviceName: "svc", captureContent: false })
  })

  it("a signal's own endpoint is used as is; logs only go where an endpoint says", () => {
    const o = DshTelemetry.optionsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1/custom" })!
    expect(Environment.signalUrl(o, "traces")).toBe("http://t:1/custom")
    expect(Environment.signalUrl(o, "logs")).toBeUndefined()
  })

  it("pairs: percent-decoded, malformed ones skipped", () => {
    expect(Environment.parsePairs("a=1, b = x%2Cy ,=z,c=%E0%A4%A")).toEqual({ a: "1", b: "x,y" })
    expect(Environment.parsePairs(undefined)).toEqual({})
  })
})
