// A local OpenAI-compatible server for `dsh mcp`'s children: the MCP client is the main agent,
// so only the children ask a model. Scripted per request.
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"

const reply = (request: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply => {
  const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages
  const last = messages.at(-1)
  return { text: `explored: ${typeof last?.content === "string" ? last.content : "?"} -> 3 files mention it.` }
}

export const startMockModel = (): Promise<FakeOpenAIServer.FakeServer> => FakeOpenAIServer.startFakeOpenAIServer({ respond: reply })
