// A local OpenAI-compatible server that plays every model of the example, scripted per request
// (each agent is known by its system prompt). Swap it for a real provider's URL and key.
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
  const lastText = textOf(last)
  // The children (dsh runs them on this server too).
  if (system.includes("You research")) {
    if (lastText.startsWith("[announce step]")) return { text: "The build is green." }
    return { text: lastText.includes("build") ? "The build is green: 212 tests passed." : "The answer is 42." }
  }
  if (system.includes("You extract")) {
    return last?.role === "tool" ? { text: "reported" } : { toolCalls: [{ name: "report", arguments: { result: "found her", json: { name: "Ada Lovelace", born: 1815 } } }] }
  }
  // The lead: the AI SDK's ToolLoopAgent.
  if (lastText.includes("[background subagent")) return { text: `Heard from the background: ${lastText.split("\n")[1]}` }
  if (last?.role === "tool") {
    return lastText.includes("accepted") ? { text: "no announcement yet" } : { text: `My researcher says: ${lastText.split("\n")[1]}` }
  }
  if (lastText.includes("background")) {
    return { toolCalls: [{ name: "subagent", arguments: { agent: "researcher", description: "check the build", prompt: "Check the build.", background: true } }] }
  }
  return { toolCalls: [{ name: "subagent", arguments: { agent: "researcher", description: "find the answer", prompt: "What is the answer?" } }] }
}

export const startMockModel = (): Promise<FakeOpenAIServer.FakeServer> => FakeOpenAIServer.startFakeOpenAIServer({ respond: reply })
