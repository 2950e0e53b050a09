// The example on a real AI SDK provider, `@ai-sdk/openai-compatible`, pointed at a local
// OpenAI-compatible mock (any Ollama, vLLM or llama.cpp server works the same). Run: node src/main.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { delegate } from "./delegate.ts"

const server = await FakeOpenAIServer.startFakeOpenAIServer({
  respond: (request) => {
    const body = request.body as { messages: Array<{ role: string; content: unknown }> }
    const system = String(body.messages.find((m) => m.role === "system")?.content ?? "")
    if (system.includes("You research")) return { text: "The answer is 42." }
    return body.messages.some((m) => m.role === "tool")
      ? { text: "My researcher says: the answer is 42." }
      : { toolCalls: [{ name: "subagent", arguments: { description: "find the answer", prompt: "What is the answer?", agent: "researcher" } }] }
  }
})
try {
  const local = createOpenAICompatible({ name: "local", baseURL: server.url, apiKey: "sk-local" })
  console.log(await delegate(local, "What is the answer?"))
  console.log(`model requests: ${server.requests.length}`)
} finally {
  await server.close()
}
