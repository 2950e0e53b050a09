// dsh's subagents inside an AI SDK loop: a ToolLoopAgent whose tools are kit.tools.aiSdk().
// Run: node main.ts (a local mock model plays every agent; see mock.ts).
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Tools, createSubagents } from "@dsh/kit"
import { readUIMessageStream, stepCountIs, ToolLoopAgent, type ToolSet, type UIMessage } from "ai"
import { z } from "zod"
import { startMockModel } from "./mock.ts"

const server = await startMockModel()
const local = createOpenAICompatible({ name: "local", baseURL: server.url, apiKey: "sk-local" })

// The children run on an AI SDK model too (any LanguageModelV2–V4, or a dsh spec string).
const kit = await createSubagents({
  model: local("tiny-1"),
  agents: {
    researcher: { description: "answers one question", instructions: "You research one question." },
    extractor: { description: "extracts a person", instructions: "You extract a person." }
  }
})
const lead = new ToolLoopAgent({
  model: local("lead-1"),
  instructions: "You lead: hand work to subagents.",
  tools: await kit.tools.aiSdk<ToolSet>(),
  // Background outcomes reach the model before its next call (held up to 30 s for ones still running).
  prepareStep: Tools.announcementsStep(kit, { waitMs: 30_000 }),
  stopWhen: stepCountIs(5)
})

// 1. Foreground, streamed: the subagent call's preliminary results show the child running.
const stream = await lead.stream({ prompt: "What is the answer?" })
// readUIMessageStream yields the message as it grows: print each child and each result once.
const seen = new Set<string>()
for await (const message of readUIMessageStream<UIMessage>({ stream: stream.toUIMessageStream() })) {
  for (const part of message.parts) {
    if (part.type !== "tool-subagent" || part.state !== "output-available") continue
    const output = part.output as Tools.SubagentProgress | string // preliminary: progress; final: the result
    const key = part.preliminary === true ? (typeof output === "object" ? output.handle : undefined) : part.toolCallId
    if (key === undefined || seen.has(key)) continue
    seen.add(key)
    console.log(part.preliminary === true ? `progress: ${key} is running` : `subagent result: ${String(output).replace("\n", " ")}`)
  }
}
console.log(`lead: ${await stream.text}`)

// 2. Background: accepted at once; its outcome is injected before the next model call.
const background = await lead.stream({ prompt: "Check the build in the background." })
console.log(`lead: ${await background.text} (after ${(await background.steps).length} steps)`)

// 3. A typed result: the child reports JSON matching the schema; `value` is typed.
const Person = z.object({ name: z.string(), born: z.number() })
const { value } = await kit.delegate({ agent: "extractor", prompt: "Who wrote the first program?", schema: Person })
console.log(`typed: ${value.name}, born ${value.born}`)

await kit.close() // stops every child, closes the store
await server.close()
