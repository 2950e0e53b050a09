import { Cause, Layer, Logger, References } from "effect"
import { logText, PINO_LEVELS } from "./internal/levels.ts"

/**
 * Effect's logging into the harness's own pino logger: dsh's warnings (and anything else logged
 * with `Effect.log*` under this layer) become lines of the app's log, with the app's bindings
 * (`pino.child({...})`, `base`), its level filter and its destination. pino is not imported here:
 * the app passes its instance, so pino stays an optional peer that only apps using this layer
 * install.
 */

type LogFn = (fields: object, message: string) => void

/** The part of a `pino.Logger` this layer calls (any pino 8-10 logger is one). */
export interface PinoLike {
  readonly trace: LogFn
  readonly debug: LogFn
  readonly info: LogFn
  readonly warn: LogFn
  readonly error: LogFn
  readonly fatal: LogFn
}

/**
 * A logger writing to `pino`: the message as `msg`, the fiber's log annotations as fields, the
 * cause (when there is one) as `err`, pretty-printed; the level mapped to pino's of the same name.
 */
export const make = (pino: PinoLike): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    const level = PINO_LEVELS[options.logLevel]
    if (level === undefined) return
    const fields: Record<string, unknown> = { ...options.fiber.getRef(References.CurrentLogAnnotations) }
    if (options.cause.reasons.length > 0) fields.err = Cause.pretty(options.cause)
    try {
      pino[level](fields, logText(options.message))
    } catch {
      // The app's logger failing loses a line, never the run.
    }
  })

/**
 * Replaces Effect's loggers with `pino` (or adds it with `mergeWithExisting: true`), for every
 * effect run under the layer: `Effect.provide(PinoLogger.layer(app.logger))`.
 */
export const layer = (pino: PinoLike, options: { readonly mergeWithExisting?: boolean | undefined } = {}): Layer.Layer<never> =>
  Logger.layer([make(pino)], { mergeWithExisting: options.mergeWithExisting ?? false })
