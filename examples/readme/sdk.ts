import { AgentCatalog, type AgentDefinition } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { SdkServer, createSdkClient } from "@dsh/sdk"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "ask", prompt: "{{lastUser}}", agent: "researcher" } }] } },
    { reply: { text: "{{lastTool|firstLine}}" } }
  ]
}
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:answer"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-sdk-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { answer: script } })])
)))

// The server end, as `dsh sdk` runs it on its stdio; here over an in-memory pipe pair.
const toServer = new PassThrough()
const toClient = new PassThrough()
const served = Effect.runPromise(SdkServer.serveSdk({ input: toServer, output: toClient }).pipe(Effect.provide(host)))

// The client end (`createSdkClient({ command: "dsh", args: ["sdk"] })` spawns a server instead).
const client = await createSdkClient({ input: toClient, output: toServer })
const session = await client.createSession({ cwd: process.cwd() })
const result = await client.prompt({ sessionId: session.id, prompt: "What is the answer?" }, {
  onEvent: ({ handle, event }) => {
    if (event.type === "subagent-start" || event.type === "turn-end") console.log(`${handle ?? "main"}: ${event.type}`) // main: subagent-start, researcher-1: turn-end, main: turn-end
  }
})
console.log(result.status, result.result, result.subagents.map((child) => child.name)) // completed The answer is 42. [ 'researcher-1' ]
await client.close() // the server's input ends: it stops serving
await served
