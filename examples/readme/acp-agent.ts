import * as acp from "@agentclientprotocol/sdk/unstable"
import { AgentCatalog } from "@dsh/agent"
import { ServeAcp } from "@dsh/acp-agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// Any AgentHost can be served; this one is a harness with one agent on a scripted model.
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "echo", description: "echoes", systemPrompt: "You echo.", override: false, scope: "runtime", source: "example" } })),
  backends: [],
  model: "scripted:echo"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-acp-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { echo: { rules: [{ reply: { text: "You said: {{lastUser}}" } }] } } })])
)))

// An in-memory stream pair; on stdio pass acp.ndJsonStream(io.writable, io.readable) with
// io = webStdio(process.stdout, process.stdin) from @dsh/subprocess, as `dsh acp` does.
const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>()
const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>()
const served = Effect.runPromise(ServeAcp.serveAcp({ stream: { readable: toAgent.readable, writable: toClient.writable }, agentInfo: { name: "echo", version: "1.0.0" } }).pipe(Effect.provide(host)))

// An editor's side, with the ACP SDK's client.
const reply = await acp.client({ name: "editor" })
  .onNotification(acp.methods.client.session.update, ({ params: { update } }) => {
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") process.stdout.write(update.content.text) // You said: hi there
  })
  .connectWith({ readable: toClient.readable, writable: toAgent.writable }, async (agent) => {
    const hello = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
    console.log(`agent: ${hello.agentInfo?.name} ${hello.agentInfo?.version}, loadSession: ${hello.agentCapabilities?.loadSession}`) // agent: echo 1.0.0, loadSession: true
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] })
    return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi there" }] })
  })
console.log(`\nstop: ${reply.stopReason}`) // stop: end_turn
await toAgent.writable.close() // the client's EOF: serveAcp ends by itself
await served
