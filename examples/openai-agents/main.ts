// dsh's subagents inside an OpenAI Agents SDK loop: an Agent whose tools are
// kit.tools.openaiAgents(), run with run(). Run: node main.ts (a local mock model; see mock.ts).
import { createSubagents } from "@dsh/kit"
import { Agent, type FunctionTool, run, setOpenAIAPI, setTracingDisabled } from "@openai/agents"
import { startMockModel } from "./mock.ts"

const server = await startMockModel()
// Both SDKs read the standard variables: the Agents SDK's OpenAI client and dsh's `openai:` models.
process.env.OPENAI_BASE_URL = server.url
process.env.OPENAI_API_KEY = "sk-local"
setOpenAIAPI("chat_completions")
setTracingDisabled(true) // no trace export to OpenAI from an offline example

const kit = await createSubagents({
  model: "openai:tiny-1",
  agents: { researcher: { description: "answers one question", instructions: "You research one question." } }
})
try {
  const lead = new Agent({
    name: "lead",
    instructions: "You lead: hand research to a subagent.",
    model: "tiny-1",
    tools: await kit.tools.openaiAgents<Array<FunctionTool>>()
  })
  const result = await run(lead, "How many people live in Paris?", { stream: true })
  await result.completed
  console.log(`lead: ${result.finalOutput}`)
  for (const child of await kit.children()) console.log(`${child.handle} (${child.agent}): ${child.status}`)
} finally {
  await kit.close()
  await server.close()
}
