import type { Events } from "@dsh/core"
import type { AgentStatus, AgentTree } from "./AgentTree.ts"
import { columnWidths, formatRow, treeRows, treeSummary } from "./TreeText.ts"
import { Clock, Effect, Queue, type Scope } from "effect"
import type { Writable } from "node:stream"

/** stdout as a terminal: whether it is one, and its size when known. */
export type TerminalOut = Writable & { readonly isTTY?: boolean | undefined; readonly columns?: number | undefined; readonly rows?: number | undefined }

/** Whether to draw a live view on `out`: a terminal that understands cursor movement. */
export const isLiveTerminal = (out: TerminalOut, env: NodeJS.ProcessEnv): boolean =>
  out.isTTY === true && env.TERM !== "dumb" && env.DSH_LIVE !== "0"

const ESC = "\u001b["
const HIDE_CURSOR = `${ESC}?25l`
const SHOW_CURSOR = `${ESC}?25h`
/** Moves up `n` lines to column 1; then everything below is cleared. */
const rewind = (n: number) => (n > 0 ? `\r${ESC}${n}A` : "\r")
const CLEAR_BELOW = `${ESC}J`

const COLOURS: Record<AgentStatus, string> = {
  queued: "90",
  running: "36",
  completed: "32",
  failed: "31",
  timeout: "33",
  cancelled: "90",
  lost: "35"
}

/** How often a frame may be drawn, and how often elapsed times move when nothing happens. */
const THROTTLE = "100 millis"
const TICK = "1 second"

/**
 * A live tree of a session's agents on a terminal, redrawn in place: ANSI cursor movement, at
 * most one frame per 100 ms (and one a second for the clocks), each line cut to the terminal's
 * width, the frame cut to its height. The cursor is hidden while drawing and shown again when
 * the scope closes — also if the process exits on a second Ctrl-C. On close, the whole final
 * tree stays on screen with a one-line summary under it.
 */
export const liveTreeView = (out: TerminalOut, tree: AgentTree, env: NodeJS.ProcessEnv): Effect.Effect<{
  /** Applies an event of `source` (`main` or a child's handle) and asks for a frame. */
  readonly apply: (source: string, event: Events.AgentEvent) => Effect.Effect<void>
  /** Asks for a frame (the tree was changed by someone else). */
  readonly redraw: Effect.Effect<void>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
    const colour = env.NO_COLOR === undefined || env.NO_COLOR === ""
    const style = (status: AgentStatus, text: string) => (colour ? `${ESC}${COLOURS[status]}m${text}${ESC}0m` : text)
    let drawn = 0
    const frame = (now: number, full: boolean): ReadonlyArray<string> => {
      // A terminal that does not say its size (0) gets 100 columns and no height limit.
      const width = out.columns !== undefined && out.columns > 0 ? Math.max(20, out.columns - 1) : 100
      const rows = treeRows(tree, now)
      const widths = columnWidths(rows)
      const lines = rows.map((r) => formatRow(r, widths, width, style))
      const height = out.rows !== undefined && out.rows > 0 ? out.rows : 0
      // A frame taller than the screen could not be redrawn in place.
      if (full || height === 0 || lines.length <= height - 1) return lines
      const shown = Math.max(1, height - 2)
      return [...lines.slice(0, shown), `… ${lines.length - shown} more agents`]
    }
    const draw = (full: boolean) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const lines = frame(clock.currentTimeMillisUnsafe(), full)
          out.write(`${rewind(drawn)}${CLEAR_BELOW}${lines.join("\n")}\n`)
          drawn = lines.length
        })
      )

    const restoreCursor = () => void out.write(SHOW_CURSOR)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        out.write(HIDE_CURSOR)
        process.once("exit", restoreCursor)
      }),
      () =>
        Effect.clockWith((clock) =>
          Effect.gen(function*() {
            yield* draw(true)
            yield* Effect.sync(() => {
              out.write(`${treeSummary(tree, clock.currentTimeMillisUnsafe())}\n${SHOW_CURSOR}`)
              process.removeListener("exit", restoreCursor)
            })
          })
        )
    )

    const dirty = yield* Queue.sliding<void>(1)
    yield* Effect.forkScoped(Effect.forever(
      Effect.raceFirst(Queue.take(dirty), Effect.sleep(TICK)).pipe(
        Effect.andThen(draw(false)),
        Effect.andThen(Effect.sleep(THROTTLE))
      )
    ))
    yield* draw(false)
    return {
      apply: (source, event) =>
        Clock.currentTimeMillis.pipe(
          Effect.tap((now) => Effect.sync(() => tree.apply(source, event, now))),
          Effect.andThen(Queue.offer(dirty, undefined)),
          Effect.asVoid
        ),
      redraw: Queue.offer(dirty, undefined).pipe(Effect.asVoid)
    }
  })
