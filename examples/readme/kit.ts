import { createSubagents } from "@dsh/kit"
import { ScriptedModel } from "@dsh/llm-scripted"

// An offline model that plays both agents (or pass "openai:gpt-4.1-mini"): the lead delegates, the researcher answers.
const model = ScriptedModel.make({
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "researcher", description: "find the answer", prompt: "What is the answer?" } }] } },
    { reply: { text: "My researcher says: {{lastTool|firstLine}}" } }
  ]
})

const kit = await createSubagents({ model, agents: { researcher: { description: "answers one question", instructions: "You research one question." } } })
const result = await kit.prompt("What is the answer?")
console.log(result.text) // My researcher says: The answer is 42.
for (const child of result.children) console.log(`${child.handle} (${child.agent}): ${child.status}`) // researcher-1 (researcher): completed
await kit.close()
