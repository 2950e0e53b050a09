// A local OpenAI-compatible server that plays the Chat's model and dsh's child, scripted per
// request; each agent is known by its system prompt.
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"

interface Message {
  readonly role: string
  readonly content?: unknown
}

const textOf = (m: Message | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""))
// effect/ai encodes a tool's result with its success schema: a string arrives JSON-quoted.
const plain = (text: string): string => (text.startsWith('"') ? String(JSON.parse(text)) : text)

const reply = (request: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply => {
  const messages = (request.body as { messages: Array<Message> }).messages
  const system = textOf(messages.find((m) => m.role === "system"))
  const last = messages.at(-1)
  if (system.includes("You review")) return { text: "Two issues: a missing null check, and no test." }
  // The Chat: delegates once, then answers with the child's result.
  if (last?.role === "tool") return { text: `The reviewer found: ${plain(textOf(last)).split("\n")[1]}` }
  return { toolCalls: [{ name: "subagent", arguments: { agent: "reviewer", description: "review", prompt: "Review the change in src/parse.ts." } }] }
}

export const startMockModel = (): Promise<FakeOpenAIServer.FakeServer> => FakeOpenAIServer.startFakeOpenAIServer({ respond: reply })
