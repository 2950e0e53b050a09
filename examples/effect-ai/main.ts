// dsh's subagents inside an effect/ai Chat: kit.tools.effectAi() gives a Toolkit and the layer
// of its handlers. Run: node main.ts (a local mock model; see mock.ts).
import { createSubagents } from "@dsh/kit"
import { ModelRegistry } from "@dsh/llm"
import { ToEffectAi } from "@dsh/llm-effect-ai"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { Effect, Layer } from "effect"
import { Chat } from "effect/ai"
import { startMockModel } from "./mock.ts"

const server = await startMockModel()
process.env.OPENAI_BASE_URL = server.url
process.env.OPENAI_API_KEY = "sk-local"

const kit = await createSubagents({
  model: "openai:tiny-1",
  agents: { reviewer: { description: "reviews a change", instructions: "You review one change." } }
})
const { toolkit, layer } = kit.tools.effectAi()

// effect/ai runs the tool calls of one response; the Chat keeps the history, so calling it
// again until the model stops asking for tools is the loop.
const program = Effect.gen(function*() {
  const chat = yield* Chat.fromPrompt([{ role: "system", content: "You lead: hand reviews to a subagent." }])
  let response = yield* chat.generateText({ prompt: "Review src/parse.ts.", toolkit })
  for (let step = 1; response.toolCalls.length > 0 && step < 5; step++) {
    for (const result of response.toolResults) console.log(`tool ${result.name}: ${String(result.result).replace("\n", " ")}`)
    response = yield* chat.generateText({ prompt: [], toolkit })
  }
  return response.text
})

// The Chat's own model: any effect/ai LanguageModel; here dsh's `openai:` adapter on the mock.
const model = ToEffectAi.layerFromSpec("openai:lead-1", { env: process.env }).pipe(Layer.provide(ModelRegistry.layerWith([OpenAIAdapter.OpenAIAdapter])))
try {
  console.log(`chat: ${await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(model, layer))))}`)
} finally {
  await kit.close()
  await server.close()
}
