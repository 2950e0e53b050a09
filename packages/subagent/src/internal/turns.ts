import type { TurnLoop } from "@dsh/agent"
import { type Messages, Usage } from "@dsh/core"
import { Effect } from "effect"
import type { TurnRunner } from "../Vocabulary.ts"
import type { Announcements } from "./announcements.ts"

/**
 * The wake loop every agent runs in (the main agent and every in-process child alike).
 * Before each model call of a turn it gets the messages sent to it meanwhile (`inbox`) and
 * the announcements of its background children, which are marked delivered once the turn's
 * transcript is synced (the turn runner's job). A turn that ends is not the end while either
 * remains: messages that arrived too late for the turn become the next turn's prompt, and
 * background work still running is waited for, its outcomes waking the agent. The agent
 * reports only when both are settled. Usage is summed over the turns.
 */
export const runTurns = <E>(
  announcements: Announcements,
  inbox: Effect.Effect<ReadonlyArray<string>>,
  handle: string,
  prompt: string,
  turn: TurnRunner<E>
): Effect.Effect<TurnLoop.TurnResult, E> =>
  Effect.gen(function*() {
    const asUser = (texts: ReadonlyArray<string>) => texts.map((content): Messages.Message => ({ role: "user", content }))
    const beforeStep = Effect.zipWith(inbox, announcements.takeTexts(handle), (messages, texts) => asUser([...messages, ...texts]))
    const once = (text: string) => turn(text, beforeStep).pipe(Effect.tap(() => announcements.ack(handle)))
    let last = yield* once(prompt)
    let usage = last.usage
    while (last.status === "completed") {
      const late = yield* inbox
      if (late.length === 0) {
        if ((yield* announcements.pending(handle)) === 0) break
        yield* announcements.awaitNext(handle)
      }
      const texts = [...late, ...(yield* announcements.takeTexts(handle))]
      if (texts.length === 0) continue
      last = yield* once(texts.join("\n\n"))
      usage = Usage.addUsage(usage, last.usage)
    }
    return { ...last, usage }
  })
