import { Cause, Context, Effect, Layer, Logger } from "effect"
import { mkdirSync, openSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import type { Writable } from "node:stream"
import type * as Pino from "pino"
import { logText, PINO_LEVELS } from "./internal/levels.ts"

/**
 * dsh's log file (the CLI's `$DSH_HOME/logs/dsh.log`): pino's JSON lines (`{"level":30,"time":"…","pid":…,…fields,"msg":"…"}`,
 * so `pino-pretty` and `jq` read them), written by pino. Loading pino (with sonic-boom and
 * thread-stream) costs ~30 ms of module loading, which must not fall before a command's first
 * answer (`dsh acp` logs its first line before it): a deferred logger keeps its lines, with their
 * times, until pino is loaded once the process idles after its start (see `IDLE_CHECK_MS`), at the
 * process's exit, or once `MAX_QUEUED` lines wait.
 */
const LEVEL_VALUES = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const

export type LevelName = keyof typeof LEVEL_VALUES

/** A logger writing one JSON line per call to a file (never stdout: it belongs to the output and to protocols). */
export type FileLogger = { readonly [L in LevelName]: (fields: object, message: string) => void }

/**
 * A deferred logger loads pino once the process idles: its event loop busy less than a quarter of
 * each of two consecutive `IDLE_CHECK_MS` windows (waiting for the next request, or for the
 * model), which a start is not; a plain timer fired inside slow starts on a loaded machine. At the
 * latest after `MAX_DEFER_MS`.
 */
const IDLE_CHECK_MS = 250
const IDLE_WINDOWS = 2
const MAX_DEFER_MS = 5_000
/** A deferred logger loads pino early once this many lines wait. */
const MAX_QUEUED = 1_000

/** `DSH_LOG_LEVEL`: a level name or `silent`; anything else is refused as pino refuses it. */
const checkLevel = (name: string): string => {
  if (name !== "silent" && !Object.hasOwn(LEVEL_VALUES, name)) throw new Error(`unknown level ${name}`)
  return name
}

const requirePino = createRequire(import.meta.url)

export interface FileLoggerOptions {
  /** Load pino off the start path (see above); default: now. */
  readonly deferred?: boolean | undefined
}

/**
 * A file logger: the directory is made and the file opened for appending now (so a file that
 * cannot be written fails here); pino writes each line with one synchronous write (sonic-boom,
 * `sync: true`), so a line logged is on disk when the call returns or, deferred, when pino loads.
 * Lines below `DSH_LOG_LEVEL` (default `info`) are dropped; a failed write loses its line, never
 * the command.
 */
export const fileLogger = (file: string, options: FileLoggerOptions = {}): FileLogger => {
  const level = checkLevel(process.env.DSH_LOG_LEVEL ?? "info")
  const lowest = level === "silent" ? Number.POSITIVE_INFINITY : LEVEL_VALUES[level as LevelName]
  // Logs quote prompts and tool output: private like the session beside them (umask only narrows).
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const fd = openSync(file, "a", 0o600)
  const queue: Array<readonly [LevelName, object, string, string]> = []
  let logger: Pino.Logger | undefined
  // The time of a queued line while it is written: its own, not the time pino loaded.
  let replaying: string | undefined
  const load = (): Pino.Logger => {
    if (logger !== undefined) return logger
    process.off("exit", load)
    try {
      const pino = requirePino("pino") as typeof Pino
      const destination = pino.destination({ fd, sync: true })
      destination.on("error", () => undefined) // A full disk or a revoked file: the log loses lines.
      logger = pino.pino({ level, base: { pid: process.pid }, timestamp: () => `,"time":"${replaying ?? new Date().toISOString()}"` }, destination)
    } catch {
      // pino missing from a broken install: the log is lost, never the command (nor a timer's crash).
      logger = SILENT
      queue.length = 0
    }
    for (const [at, fields, message, time] of queue.splice(0)) {
      replaying = time
      write(logger, at, fields, message)
    }
    replaying = undefined
    return logger
  }
  if (options.deferred === true) {
    process.once("exit", load)
    const since = Date.now()
    let window = performance.eventLoopUtilization()
    let idle = 0
    const whenIdle = (): void => {
      if (logger !== undefined) return
      idle = performance.eventLoopUtilization(window).utilization < 0.25 ? idle + 1 : 0
      window = performance.eventLoopUtilization()
      if (idle >= IDLE_WINDOWS || Date.now() - since >= MAX_DEFER_MS) load()
      else setTimeout(whenIdle, IDLE_CHECK_MS).unref()
    }
    setTimeout(whenIdle, IDLE_CHECK_MS).unref()
  } else load()
  const at = (name: LevelName) => (fields: object, message: string): void => {
    if (LEVEL_VALUES[name] < lowest) return
    if (logger !== undefined) return write(logger, name, fields, message)
    queue.push([name, fields, message, new Date().toISOString()])
    if (queue.length >= MAX_QUEUED) load()
  }
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), fatal: at("fatal") }
}

const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} } as unknown as Pino.Logger

const write = (logger: Pino.Logger, level: LevelName, fields: object, message: string): void => {
  try {
    logger[level](fields, message)
  } catch {
    // A write that throws loses its line, never the command.
  }
}

/**
 * Which warnings of a fiber also go to stderr (all by default; every warning goes to the log
 * file). A cluster run keeps those after its store became unreachable off stderr: they are
 * consequences of the one line its failure prints.
 */
export const StderrWarnings = Context.Reference<(line: string) => boolean>("@dsh/telemetry/StderrWarnings", {
  defaultValue: () => () => true
})

/**
 * Effect's logs to `file` (see `fileLogger`); warnings and errors also as one line on
 * `stderr`, where a user sees them and stdout stays parseable (warnings as `StderrWarnings` says) —
 * except those `divert` takes (it returns true): the CLI says a failing session store once,
 * itself, rather than once per failed write.
 */
export const layer = (options: {
  readonly file: string
  readonly stderr: Writable
  readonly divert?: ((line: string, cause: Cause.Cause<unknown>) => boolean) | undefined
}): Layer.Layer<never> =>
  Layer.unwrap(Effect.sync(() => {
    const log = fileLogger(options.file, { deferred: true })
    return Logger.layer([
      Logger.make((o) => {
        const level = PINO_LEVELS[o.logLevel]
        if (level === undefined) return
        const line = logText(o.message)
        log[level](o.cause.reasons.length === 0 ? {} : { cause: Cause.pretty(o.cause) }, line)
        if (options.divert?.(line, o.cause) === true) return
        if (level === "warn" && !o.fiber.getRef(StderrWarnings)(line)) return
        if (level === "warn" || level === "error" || level === "fatal") options.stderr.write(`dsh: ${level === "warn" ? "warning" : level}: ${line}\n`)
      })
    ])
  }))
