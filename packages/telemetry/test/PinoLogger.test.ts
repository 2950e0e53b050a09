import { Trace } from "@dsh/core"
import { Effect, Layer } from "effect"
import { createServer } from "node:net"
import { Writable } from "node:stream"
import { pino } from "pino"
import { expect, it } from "vitest"
import { DshTelemetry, PinoLogger } from "../src/index.ts"

/** A real pino logger writing to a stream the test reads: the app's bindings in `base` and a child. */
const appLogger = () => {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  const logger = pino({ level: "info", base: { app: "billing-api" } }, stream).child({ component: "subagents" })
  return { logger, lines }
}

it("dsh's logs land in the app's pino logger with its bindings, level and annotations", async () => {
  const { logger, lines } = appLogger()
  await Effect.runPromise(
    Effect.gen(function*() {
      yield* Effect.logDebug("below the app's level")
      yield* Effect.logWarning("subagent reviewer-1: over its turn limit").pipe(Effect.annotateLogs({ sessionId: "s1" }))
      yield* Effect.logError("child failed", new Error("boom"))
    }).pipe(Effect.provide(PinoLogger.layer(logger)))
  )
  expect(lines).toHaveLength(2)
  expect(lines[0]).toMatchObject({ level: 40, app: "billing-api", component: "subagents", sessionId: "s1", msg: "subagent reviewer-1: over its turn limit" })
  expect(lines[1]).toMatchObject({ level: 50, app: "billing-api", msg: "child failed Error: boom" })
})

it("a real dsh warning (telemetry's export failure) reaches the app's log", async () => {
  // A port that refuses connections: the exporter's one warning says so.
  const server = createServer()
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((closed) => server.close(() => closed()))
  const { logger, lines } = appLogger()
  const telemetry = DshTelemetry.layer({ endpoint: `http://127.0.0.1:${port}`, protocol: "http/json" })
  await Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      yield* Effect.void.pipe(Effect.withSpan("invoke_agent reviewer"))
      yield* Trace.flushTelemetry
    }).pipe(Effect.provide(Layer.merge(telemetry, PinoLogger.layer(logger)))))
  )
  const warning = lines.find((l) => typeof l.msg === "string" && l.msg.startsWith("telemetry: export to"))
  expect(warning).toMatchObject({ level: 40, app: "billing-api", component: "subagents" })
  expect(warning?.msg).toMatch(/failed .*; spans and logs are dropped, the run goes on/)
})
