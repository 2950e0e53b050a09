import { Messages, Usage } from "@dsh/core"
import { LanguageModel, ModelRegistry } from "@dsh/llm"
import { Effect, Stream } from "effect"

// An adapter of your own: a model needs one primitive, `stream`; `generate` is derived from it.
const EchoAdapter: ModelRegistry.ModelAdapter = {
  name: "echo",
  description: "repeats the latest message, word by word",
  aliases: { parrot: "echo:v2" }, // short names it ships
  modelIds: { match: /^echo-/, describe: "echo-*" }, // bare ids it serves without "echo:"
  create: (model) => Effect.succeed(LanguageModel.make({
    provider: "echo",
    model,
    stream: (request) => {
      const words = (request.messages.at(-1)?.content ?? "").split(" ")
      return Stream.fromIterable<LanguageModel.StreamPart>([
        ...words.map((word, i): LanguageModel.StreamPart => ({ type: "text-delta", text: i === 0 ? word : ` ${word}` })),
        { type: "finish", reason: "stop", usage: Usage.make(10, words.length) }
      ])
    }
  }))
}

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry.ModelRegistry
  const model = yield* registry.resolve("echo:v1") // "<adapter>:<model>", as in openai:gpt-4.1-mini
  const request = { messages: [Messages.userMessage("hello from dsh")], tools: [] }

  const parts = yield* Stream.runCollect(model.stream(request))
  console.log(parts.map((part) => part.type).join(", ")) // text-delta, text-delta, text-delta, finish
  const response = yield* model.generate(request)
  console.log(`${response.message.content} (${response.finishReason}, ${response.usage.totalTokens} tokens)`) // hello from dsh (stop, 13 tokens)

  // Aliases (the adapter's and the registry's own) and bare vendor ids map to "<adapter>:<model>".
  console.log(yield* registry.canonical("parrot"), yield* registry.canonical("fast"), yield* registry.canonical("echo-3")) // echo:v2 echo:v1 echo:echo-3

  const error = yield* Effect.flip(registry.resolve("openai:gpt-4.1-mini"))
  console.log(error.message) // unknown model adapter "openai"; available: echo
})

Effect.runPromise(program.pipe(Effect.provide(ModelRegistry.layerWith([EchoAdapter], { aliases: { fast: "echo:v1" } }))))
