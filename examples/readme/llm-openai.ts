import { Messages } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Effect, Stream } from "effect"

// A local stand-in for api.openai.com (or Ollama, vLLM, llama.cpp) on 127.0.0.1: it first
// answers 429, then streams text and a tool call whose arguments arrive in pieces.
const server = await FakeOpenAIServer.startFakeOpenAIServer({
  replies: [{ status: 429 }, { text: "Let me look.", toolCalls: [{ name: "Read", arguments: { path: "README.md" } }], usage: { input: 42, output: 9 } }]
})

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry.ModelRegistry
  // Reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment it is given (here: the fake's).
  const model = yield* registry.resolve("openai:gpt-4.1-mini", { env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.url } })
  yield* model.stream({ messages: [Messages.userMessage("What is in the README?")], tools: [] }).pipe(
    Stream.runForEach((part) =>
      Effect.sync(() => {
        if (part.type === "text-delta") process.stdout.write(part.text) // Let me look.
        if (part.type === "tool-call") console.log(`\ntool call: ${part.call.name} ${part.call.arguments}`) // tool call: Read {"path":"README.md"}
        if (part.type === "finish") console.log(`finish: ${part.reason}, ${part.usage.totalTokens} tokens`) // finish: tool-calls, 51 tokens
      })
    )
  )
  console.log(`${server.requests.length} requests: the 429 was retried`) // 2 requests: the 429 was retried

  const error = yield* Effect.flip(registry.resolve("openai:gpt-4.1-mini", { env: {} }))
  console.log(error.message) // openai: Configuration: OPENAI_API_KEY is not set
})

await Effect.runPromise(program.pipe(Effect.provide(ModelRegistry.layerWith([OpenAIAdapter.OpenAIAdapter])))).finally(() => server.close())
