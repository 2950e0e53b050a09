import { userMessage } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { Effect, Layer, Stream } from "effect"

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  // Reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment it is given.
  const model = yield* registry.resolve("openai:gpt-4.1-mini", { env: process.env })
  yield* model.stream({ messages: [userMessage("Say hello in five words.")], tools: [] }).pipe(
    Stream.runForEach((part) =>
      Effect.sync(() => {
        if (part.type === "text-delta") process.stdout.write(part.text)
        if (part.type === "finish") console.log(`\n[${part.reason}, ${part.usage.totalTokens} tokens]`)
      })
    )
  )
})

const ModelsLive = ModelRegistry.provide(OpenAIAdapter).pipe(Layer.provideMerge(ModelRegistry.layer))

Effect.runPromise(program.pipe(Effect.provide(ModelsLive))).catch((error) => {
  console.error(String(error))
  process.exitCode = 1
})
