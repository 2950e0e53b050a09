import { AgentCatalog, type AgentDefinition } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { LineTransport, ServeMcp } from "@dsh/mcp-server"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })

// The MCP client plays the main agent; only the researcher runs on the (scripted) model.
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:example"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-mcp-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { example: { rules: [{ reply: { text: "The answer is 42." } }] } } })])
)))

// An in-memory pair; `dsh mcp` passes process.stdin and process.stdout.
const toServer = new PassThrough()
const toClient = new PassThrough()
const served = Effect.runPromise(ServeMcp.serveMcp({
  input: toServer,
  output: toClient,
  serverInfo: { name: "dsh", version: "1.0.0" },
  create: { cwd: process.cwd() }
}).pipe(Effect.provide(host)))

const client = new Client({ name: "example", version: "1.0.0" })
await client.connect(LineTransport.make(toClient, toServer))
console.log((await client.listTools()).tools.map((t) => t.name).join(", ")) // subagent, send_message, list_agents, wait, stop
const result = await client.callTool({ name: "subagent", arguments: { agent: "researcher", description: "find the answer", prompt: "What is the answer?" } })
console.log((result.content as Array<{ text: string }>)[0]!.text.split("\n")[0]) // The answer is 42.
console.log((await client.listResources()).resources.map((r) => r.name).join(", ")) // researcher-1/transcript
toServer.end() // the client's EOF: serveMcp stops the children and ends
await served
