// A local OpenAI-compatible server for `dsh mcp`'s children: the MCP client is the main agent,
// so only the children ask a model. Scripted per request.
import { type FakeReply, type FakeRequest, type FakeServer, startFakeOpenAIServer } from "@dsh/llm-openai/testing"

const reply = (request: FakeRequest): FakeReply => {
  const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages
  const last = messages.at(-1)
  return { text: `explored: ${typeof last?.content === "string" ? last.content : "?"} -> 3 files mention it.` }
}

export const startMockModel = (): Promise<FakeServer> => startFakeOpenAIServer({ respond: reply })
