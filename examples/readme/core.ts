import { type Events, Ids, Messages, Registry, Usage } from "@dsh/core"
import { Effect } from "effect"

const program = Effect.gen(function*() {
  // A registry belongs to a service instance, never to the module.
  const providers = yield* Registry.make<string>("provider")
  yield* Effect.scoped(providers.register("spawn", "in process")) // gone again when the scope closes
  yield* providers.registerPermanent("fork", "a copy of the parent")
  const error = yield* Effect.flip(providers.get("acp"))
  console.log(error.message) // unknown provider "acp"; available: fork

  // Events and messages are plain data; tool-call arguments stay raw JSON text.
  const events: ReadonlyArray<Events.AgentEvent> = [
    { type: "turn-start", turn: 1, prompt: "hello" },
    { type: "message", message: Messages.userMessage("hello") }
  ]
  console.log(events.map((e) => e.type).join(" → ")) // turn-start → message

  const usage = Usage.addUsage(Usage.make(1200, 300), Usage.make(800, 200))
  const cost = Usage.costOf(usage, { inputPerMillion: 3, outputPerMillion: 15 })
  console.log(`${usage.totalTokens} tokens, $${cost?.toFixed(4)}`) // 2500 tokens, $0.0135
  console.log(Ids.makeId(new Date("2026-11-29T17:54:30Z"))) // 20261129T175430-3f9a1c2b: sortable, safe as a path segment
})

Effect.runPromise(program)
