// A local OpenAI-compatible server (Chat Completions, streamed) that plays the OpenAI Agents
// lead and dsh's child, scripted per request; each agent is known by its system prompt.
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"

interface Message {
  readonly role: string
  readonly content?: unknown
}

const textOf = (m: Message | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""))

const reply = (request: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply => {
  const messages = (request.body as { messages: Array<Message> }).messages
  const system = textOf(messages.find((m) => m.role === "system"))
  const last = messages.at(-1)
  if (system.includes("You research")) return { text: "Paris has 2.1 million people." }
  // The lead: delegates once, then answers with the child's result.
  if (last?.role === "tool") return { text: `My researcher says: ${textOf(last).split("\n")[1]}` }
  return { toolCalls: [{ name: "subagent", arguments: { agent: "researcher", description: "population", prompt: "How many people live in Paris?" } }] }
}

export const startMockModel = (): Promise<FakeOpenAIServer.FakeServer> => FakeOpenAIServer.startFakeOpenAIServer({ respond: reply })
