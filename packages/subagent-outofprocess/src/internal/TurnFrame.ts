import type { Events } from "@dsh/core"
import { Clock, Effect, Option, Ref } from "effect"
import type { TurnReport } from "../OutOfProcessBackend.ts"

interface OpenTurn {
  readonly turn: number
  readonly startedAt: number
}

/**
 * The `turn-start` / user `message` / `turn-end` records of a run whose protocol has no turn
 * events of its own (`turnEvents: "driver"`); a no-op when the child streams its own. At most
 * one turn is open: `open` starts one unless one is open, `close` ends the open one, once.
 */
export const makeTurnFrame = (mode: "driver" | "child", emit: (event: Events.AgentEvent) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const open = yield* Ref.make(Option.none<OpenTurn>())
    const next = yield* Ref.make(0)
    return {
      open: (prompt: string): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (mode === "child" || Option.isSome(yield* Ref.get(open))) return
          const turn = yield* Ref.getAndUpdate(next, (n) => n + 1)
          yield* Ref.set(open, Option.some({ turn, startedAt: yield* Clock.currentTimeMillis }))
          yield* emit({ type: "turn-start", turn, prompt })
          yield* emit({ type: "message", message: { role: "user", content: prompt } })
        }),
      close: (report: TurnReport): Effect.Effect<void> =>
        Effect.gen(function*() {
          const current = yield* Ref.getAndSet(open, Option.none())
          if (Option.isNone(current)) return
          yield* emit({
            type: "turn-end",
            turn: current.value.turn,
            status: report.status,
            result: report.output,
            usage: report.usage,
            durationMs: (yield* Clock.currentTimeMillis) - current.value.startedAt,
            ...(report.notes === undefined ? {} : { error: report.notes })
          })
        })
    }
  })
