import { Cause, Context, Effect, Layer, Logger, type LogLevel } from "effect"
import { mkdirSync, openSync, writeSync } from "node:fs"
import { dirname } from "node:path"
import type { Writable } from "node:stream"
import { storeFailureOf, type StoreTroubleShape } from "./StoreTrouble.ts"

/**
 * pino's level names and numbers. The CLI's log files keep pino's JSON lines
 * (`{"level":30,"time":"…","pid":…,…fields,"msg":"…"}`, so `pino-pretty` and `jq` read them) but
 * are written here: pino, sonic-boom and thread-stream also load `assert` and `worker_threads`,
 * which cost every start (`dsh acp` logs its first line before its first answer).
 */
const LEVEL_VALUES = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const

export type LevelName = keyof typeof LEVEL_VALUES

/** A logger writing one JSON line per call to a file (never stdout: it belongs to the output and to protocols). */
export type FileLogger = { readonly [L in LevelName]: (fields: object, message: string) => void }

/** `DSH_LOG_LEVEL`: a level name or `silent`; anything else is refused as pino refuses it. */
const lowestLevel = (name: string): number => {
  if (name === "silent") return Number.POSITIVE_INFINITY
  const value = (LEVEL_VALUES as Record<string, number>)[name]
  if (value === undefined) throw new Error(`unknown level ${name}`)
  return value
}

/** A value as JSON, cycles cut (`"[Circular]"`); undefined for what pino leaves out. */
const toJson = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "undefined":
    case "function":
    case "symbol":
      return undefined
    case "number":
      return Number.isFinite(value) ? String(value) : "null"
    case "bigint":
      return String(value)
    default: {
      const seen = new WeakSet<object>()
      return JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === "bigint") return v.toString()
        if (typeof v !== "object" || v === null) return v
        if (seen.has(v)) return "[Circular]"
        seen.add(v)
        return v
      })
    }
  }
}

/**
 * A file logger: the directory is made and the file opened for appending now (so a file that
 * cannot be written fails here, as pino's synchronous destination did); each line is one
 * synchronous write. Lines below `DSH_LOG_LEVEL` (default `info`) are dropped; a failed write
 * loses its line, never the command.
 */
export const fileLogger = (file: string): FileLogger => {
  const lowest = lowestLevel(process.env.DSH_LOG_LEVEL ?? "info")
  // Logs quote prompts and tool output: private like the session beside them (umask only narrows).
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const fd = openSync(file, "a", 0o600)
  const at = (level: LevelName) => {
    const head = `{"level":${LEVEL_VALUES[level]},"time":"`
    return (fields: object, message: string): void => {
      if (LEVEL_VALUES[level] < lowest) return
      let line = `${head}${new Date().toISOString()}","pid":${process.pid}`
      for (const [key, value] of Object.entries(fields)) {
        const json = toJson(value)
        if (json !== undefined) line += `,${JSON.stringify(key)}:${json}`
      }
      try {
        writeSync(fd, `${line},"msg":${JSON.stringify(message)}}\n`)
      } catch {
        // A full disk or a revoked file: the log loses this line.
      }
    }
  }
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), fatal: at("fatal") }
}

const LEVELS: Record<LogLevel.LogLevel, LevelName | undefined> = {
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
 * Which warnings of a fiber also go to stderr (all by default; every warning goes to the log
 * file). A cluster run keeps those after its store became unreachable off stderr: they are
 * consequences of the one line its failure prints.
 */
export const StderrWarnings = Context.Reference<(line: string) => boolean>("@dsh/cli/StderrWarnings", {
  defaultValue: () => () => true
})

// The first words of the store going away, whichever part of the process notices it first:
// a session's listener (`@dsh/session-pg`) or the cluster lane's (`@dsh/subagent-cluster`).
const STORE_DOWN = ["cannot reach PostgreSQL", "the lane no longer hears releases"]

/** `StderrWarnings` that turns quiet from the first warning that the store cannot be reached. */
export const quietOnceStoreDown = (): ((line: string) => boolean) => {
  let down = false
  return (line) => !(down ||= STORE_DOWN.some((start) => line.startsWith(start)))
}

/**
 * Effect's logs to `file` (see `fileLogger`); warnings and errors also as one line on
 * `stderr`, where a user sees them and stdout stays parseable (warnings as `StderrWarnings` says) —
 * except the session store's failures, which go to `storeTrouble` (the command says them once).
 */
export const cliLoggerLayer = (options: { readonly file: string; readonly stderr: Writable; readonly storeTrouble?: StoreTroubleShape | undefined }): Layer.Layer<never> =>
  Layer.unwrap(Effect.sync(() => {
    const log = fileLogger(options.file)
    return Logger.layer([
      Logger.make((o) => {
        const level = LEVELS[o.logLevel]
        if (level === undefined) return
        const line = text(o.message)
        log[level](o.cause.reasons.length === 0 ? {} : { cause: Cause.pretty(o.cause) }, line)
        // A failing store is said once, by the command (see StoreTrouble), not per failed write.
        const store = options.storeTrouble === undefined ? undefined : storeFailureOf(o.cause)
        if (store !== undefined) return options.storeTrouble!.note(line, store)
        if (level === "warn" && !o.fiber.getRef(StderrWarnings)(line)) return
        if (level === "warn" || level === "error" || level === "fatal") options.stderr.write(`dsh: ${level === "warn" ? "warning" : level}: ${line}\n`)
      })
    ])
  }))
