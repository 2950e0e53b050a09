import { Cause, Effect, Layer, Logger, type LogLevel } from "effect"
import type { Writable } from "node:stream"
import pino from "pino"

export type PinoLogger = pino.Logger

/** A pino logger writing to a file (never stdout, which belongs to the output and to protocols). */
export const fileLogger = (file: string): PinoLogger =>
  pino(
    { level: process.env.DSH_LOG_LEVEL ?? "info", base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: file, sync: true, mkdir: true })
  )

const LEVELS: Record<LogLevel.LogLevel, pino.Level | undefined> = {
  All: "trace",
  Trace: "trace",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "fatal",
  None: undefined
}

const text = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ")

/**
 * Effect's logs through pino (to `file`); warnings and errors also as one line on `stderr`,
 * where a user sees them and stdout stays parseable.
 */
export const cliLoggerLayer = (options: { readonly file: string; readonly stderr: Writable }): Layer.Layer<never> =>
  Layer.unwrap(Effect.sync(() => {
    const log = fileLogger(options.file)
    return Logger.layer([
      Logger.make((o) => {
        const level = LEVELS[o.logLevel]
        if (level === undefined) return
        const line = text(o.message)
        log[level](o.cause.reasons.length === 0 ? {} : { cause: Cause.pretty(o.cause) }, line)
        if (level === "warn" || level === "error" || level === "fatal") options.stderr.write(`dsh: ${level === "warn" ? "warning" : level}: ${line}\n`)
      })
    ])
  }))
