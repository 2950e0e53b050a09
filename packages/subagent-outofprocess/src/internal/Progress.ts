import { type Events, Usage } from "@dsh/core"
import { Effect, Ref } from "effect"

interface Seen {
  readonly usage: Usage.Usage
  /** US dollars the child said it spent, if it said. */
  readonly cost: number | undefined
  /** The last non-empty assistant message. */
  readonly lastMessage: string
  /** Text streamed since the last message or step. */
  readonly streaming: string
}

/**
 * What a child has said and spent so far, from the events it emitted: the output and usage of a
 * run that failed or was stopped before its runtime reported them.
 */
export const makeProgress = Effect.gen(function*() {
  const seen = yield* Ref.make<Seen>({ usage: Usage.emptyUsage, cost: undefined, lastMessage: "", streaming: "" })
  const see = (event: Events.AgentEvent): Effect.Effect<void> =>
    Ref.update(seen, (s): Seen => {
      switch (event.type) {
        case "usage":
          return { ...s, usage: Usage.addUsage(s.usage, event.usage), cost: event.cost === undefined ? s.cost : (s.cost ?? 0) + event.cost }
        case "text-delta":
          return { ...s, streaming: s.streaming + event.text }
        case "step-start":
          return { ...s, streaming: "" }
        case "message":
          return event.message.role !== "assistant" ? s : {
            ...s,
            streaming: "",
            lastMessage: event.message.content.trim() !== "" ? event.message.content : s.lastMessage
          }
        default:
          return s
      }
    })
  return {
    see,
    /** The child's final message so far (what it is still streaming, else its last message). */
    output: Effect.map(Ref.get(seen), (s) => (s.streaming.trim() !== "" ? s.streaming : s.lastMessage)),
    usage: Effect.map(Ref.get(seen), (s) => s.usage),
    cost: Effect.map(Ref.get(seen), (s) => s.cost)
  }
})

export type Progress = Effect.Success<typeof makeProgress>
