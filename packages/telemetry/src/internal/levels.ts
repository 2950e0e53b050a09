import type { LogLevel } from "effect"

/** pino's level names, which Effect's log levels map onto one for one. */
export type PinoLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal"

/** Effect's level → pino's of the same name (`All` is `trace`; `None` logs nothing). */
export const PINO_LEVELS: Record<LogLevel.LogLevel, PinoLevel | undefined> = {
  All: "trace",
  Trace: "trace",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "fatal",
  None: undefined
}

/** A log call's message parts as one line: strings as they are, errors as their text, the rest as JSON. */
export const logText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : m instanceof Error ? String(m) : JSON.stringify(m))).join(" ")
