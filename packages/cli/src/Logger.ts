import pino from "pino"

export type Logger = pino.Logger

/** Logs go to a file in the session directory (never stdout, which belongs to the output). */
export const fileLogger = (file: string): Logger =>
  pino(
    { level: process.env.DSH_LOG_LEVEL ?? "info", base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: file, sync: true, mkdir: true })
  )

export const silentLogger = (): Logger => pino({ level: "silent" })
