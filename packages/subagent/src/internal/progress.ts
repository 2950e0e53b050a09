import { type Events, Usage } from "@dsh/core"
import { Effect, Ref } from "effect"
import type { ChildOutcome } from "../Vocabulary.ts"

interface Seen {
  readonly usage: Usage.Usage
  readonly cost: number | undefined
  readonly priced: boolean
  readonly lastMessage: string
  readonly streaming: string
}

const step = (seen: Seen, event: Events.AgentEvent, cost: (event: Extract<Events.AgentEvent, { type: "usage" }>) => number | undefined): Seen => {
  switch (event.type) {
    case "usage":
      return { ...seen, usage: Usage.addUsage(seen.usage, event.usage), cost: Usage.addCost(seen.cost, cost(event)), priced: true }
    case "text-delta":
      return { ...seen, streaming: seen.streaming + event.text }
    case "step-start":
      return { ...seen, streaming: "" }
    case "message":
      if (event.message.role !== "assistant") return seen
      return { ...seen, streaming: "", lastMessage: event.message.content.trim() !== "" ? event.message.content : seen.lastMessage }
    default:
      return seen
  }
}

/**
 * What a child has said and spent so far, from its live events: the result of a run that was
 * stopped, timed out or crashed is what the child produced up to then, whatever its provider.
 */
export const makeProgress = (pricing?: Usage.PriceLookup | undefined, chosenSpec: () => string | undefined = () => undefined) => {
  const priceOfChosen = () => {
    const spec = chosenSpec()
    return spec === undefined ? undefined : pricing?.(spec)
  }
  const seen = Ref.makeUnsafe<Seen>({ usage: Usage.emptyUsage, cost: undefined, priced: false, lastMessage: "", streaming: "" })
  // The child's own accounting when it reports a cost; else each model call at its own
  // model's price (a child may have run on several), a call labelled otherwise (an ACP
  // child's type name, an SDK child's "descendants") at the price of its chosen model.
  const costOfCall = (event: Extract<Events.AgentEvent, { type: "usage" }>) => event.cost ?? Usage.costOf(event.usage, pricing?.(event.model) ?? priceOfChosen())
  return {
    see: (event: Events.AgentEvent) => Ref.update(seen, (s) => step(s, event, costOfCall)),
    /** An outcome without a result of its own gets what the child said so far. */
    fill: (outcome: ChildOutcome): Effect.Effect<ChildOutcome> =>
      Effect.map(Ref.get(seen), (s) => ({
        ...outcome,
        output: outcome.output !== "" ? outcome.output : s.streaming.trim() !== "" ? s.streaming : s.lastMessage,
        usage: outcome.usage.totalTokens > 0 ? outcome.usage : s.usage
      })),
    /**
     * The cost of the run: the provider's own accounting (`outcome.cost`) wins; else its model
     * calls; a child that reported no usage events is priced at its chosen model.
     */
    cost: (outcome: ChildOutcome): Effect.Effect<number | undefined> =>
      Effect.map(Ref.get(seen), (s) => outcome.cost ?? (s.priced ? s.cost : Usage.costOf(outcome.usage, priceOfChosen())))
  }
}
