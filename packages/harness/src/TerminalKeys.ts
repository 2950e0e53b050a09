import type { Asker } from "@dsh/tools"
import { Effect, Queue, type Scope } from "effect"
import type { Readable } from "node:stream"

/** A terminal's input: raw mode is what lets single keys (Ctrl+B) through without Enter. */
export type KeyInput = Readable & {
  readonly isTTY?: boolean | undefined
  readonly setRawMode?: ((raw: boolean) => unknown) | undefined
}

/** The keys `dsh run` answers on its interactive terminal. */
export type RunKey = "detach" | "interrupt"

const CTRL_B = 0x02
const CTRL_C = 0x03

/** The keys a chunk of raw terminal input holds, in order (everything else typed is ignored). */
export const keysOf = (chunk: Buffer | string): ReadonlyArray<RunKey> => {
  const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
  const keys: Array<RunKey> = []
  for (const b of bytes) {
    if (b === CTRL_B) keys.push("detach")
    else if (b === CTRL_C) keys.push("interrupt")
  }
  return keys
}

export interface TerminalKeys {
  /** The next key pressed. */
  readonly take: Effect.Effect<RunKey>
  /** Runs `effect` with the terminal back in line mode (a permission question reads a line). */
  readonly lineMode: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/**
 * Reads single keys from a terminal for as long as the scope: raw mode on, restored when the
 * scope closes (however the run ends) and while a question reads a line. Raw mode swallows
 * the terminal's own Ctrl+C, so it comes back as the `interrupt` key, for the caller to treat
 * as the signal it would have been.
 */
export const terminalKeys = (input: KeyInput): Effect.Effect<TerminalKeys, never, Scope.Scope> =>
  Effect.gen(function*() {
    const keys = yield* Queue.unbounded<RunKey>()
    const onData = (chunk: Buffer | string) => {
      for (const key of keysOf(chunk)) Queue.offerUnsafe(keys, key)
    }
    let lineReaders = 0
    let closed = false
    let isRaw = false
    const raw = (on: boolean) => {
      if (on === isRaw) return
      isRaw = on
      input.setRawMode?.(on)
      if (on) {
        input.on("data", onData)
        input.resume()
      } else {
        input.off("data", onData)
        input.pause()
      }
    }
    yield* Effect.acquireRelease(Effect.sync(() => raw(true)), () =>
      Effect.sync(() => {
        closed = true
        raw(false)
      }))
    return {
      take: Queue.take(keys),
      lineMode: (effect) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            if (lineReaders++ === 0) raw(false)
          }),
          () => effect,
          () =>
            Effect.sync(() => {
              if (--lineReaders === 0 && !closed) raw(true)
            })
        )
    } satisfies TerminalKeys
  })

/** An asker whose questions read their answer with the terminal in line mode. */
export const inLineMode = (asker: Asker.AskerShape, keys: TerminalKeys | undefined): Asker.AskerShape =>
  keys === undefined ? asker : { ...asker, ask: (question) => keys.lineMode(asker.ask(question)) }

/** Whether `dsh run` reads single keys: an interactive terminal (stdin and stderr), not `-p`. */
export const readsKeys = (input: KeyInput, stderr: { readonly isTTY?: boolean | undefined }, print: boolean): boolean =>
  !print && input.isTTY === true && stderr.isTTY === true && typeof input.setRawMode === "function"

/**
 * What the run's keys do: Ctrl+B detaches the main agent's running foreground children (each
 * call returns accepted; the outcomes are announced later), said through `say` (stderr); Ctrl+C, which raw
 * mode swallowed, is raised as the signal it would have been.
 */
export const answerRunKeys = (keys: TerminalKeys, say: (line: string) => Effect.Effect<void>, detach: () => Effect.Effect<ReadonlyArray<string>, { readonly message: string }> | undefined) =>
  Effect.forever(Effect.flatMap(keys.take, (key) => {
    if (key === "interrupt") return Effect.sync(() => process.kill(process.pid, "SIGINT"))
    const detached = detach()
    if (detached === undefined) return say("this host cannot move children to the background")
    return detached.pipe(
      Effect.flatMap((handles) =>
        say(
          handles.length === 0
            ? "no foreground child is running (Ctrl+B moves running ones to the background)"
            : `moved to the background: ${handles.join(", ")} (each outcome is announced when it ends)`
        )
      ),
      Effect.catch((e) => say(`cannot move children to the background: ${e.message}`))
    )
  }))
