import { Messages } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { FakeAnthropicServer } from "@dsh/llm-anthropic/testing"
import { Effect } from "effect"

// A local stand-in for api.anthropic.com on 127.0.0.1: first "overloaded" (529), then an answer.
const server = await FakeAnthropicServer.startFakeAnthropicServer({
  replies: [{ status: 529 }, { text: "Two files changed.", toolCalls: [{ name: "Glob", arguments: { pattern: "src/**" } }], usage: { input: 40, output: 12 } }]
})

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry.ModelRegistry
  // Reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment it is given (here: the fake's).
  const model = yield* registry.resolve("anthropic:claude-sonnet-4-5", { env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url } })
  const glob = { name: "Glob", description: "Finds files.", parameters: { type: "object", properties: { pattern: { type: "string" } } } }
  const response = yield* model.generate({ messages: [Messages.systemMessage("You are terse."), Messages.userMessage("What changed?")], tools: [glob], thinking: "low" })

  console.log(response.message.content) // Two files changed.
  console.log(response.message.toolCalls?.map((call) => `${call.name} ${call.arguments}`).join("\n")) // Glob {"pattern":"src/**"}
  console.log(response.finishReason, response.usage.totalTokens) // tool-calls 52

  // What went over the wire (the 529 was retried): the Messages API's shape.
  const sent = server.requests[1]?.body as { system: string; max_tokens: number; thinking: unknown; tools: Array<{ name: string }> }
  console.log(server.requests.length, sent.system, sent.max_tokens, JSON.stringify(sent.thinking)) // 2 You are terse. 8192 {"type":"enabled","budget_tokens":2048}
  console.log(server.requests[1]?.headers["anthropic-version"]) // 2023-06-01
})

await Effect.runPromise(program.pipe(Effect.provide(ModelRegistry.layerWith([AnthropicAdapter.AnthropicAdapter])))).finally(() => server.close())
