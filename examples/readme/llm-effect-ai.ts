import { FromEffectAi, ToEffectAi } from "@dsh/llm-effect-ai"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Effect } from "effect"
import { LanguageModel } from "effect/ai"

const scripted = ScriptedModel.make({ rules: [], fallback: { text: "You said: {{lastUser}}" } })
const program = Effect.gen(function*() {
  // dsh → effect/ai: a dsh model answers effect/ai's generateText (Chat and streamText work too).
  console.log((yield* LanguageModel.generateText({ prompt: "hi" })).text) // You said: hi
  // effect/ai → dsh: any effect/ai LanguageModel (here that same one) is a dsh model.
  const model = FromEffectAi.fromEffectAi(yield* LanguageModel.LanguageModel, { provider: "effect-ai", model: "scripted" })
  console.log((yield* model.generate({ messages: [{ role: "user", content: "hello" }], tools: [] })).message.content) // You said: hello
})
Effect.runPromise(program.pipe(Effect.provide(ToEffectAi.layerFromModel(scripted))))
