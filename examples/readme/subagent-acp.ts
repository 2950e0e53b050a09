import * as acp from "@agentclientprotocol/sdk/unstable"
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { type AcpAgentConfig, AcpProvider } from "@dsh/subagent-acp"
import { LocalProcessLauncher, WebStdio } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// The child: any ACP agent command (Claude Code, Gemini CLI, `dsh acp`). Here, this same file
// run with `--acp-agent`: a tiny agent built with the ACP SDK, on its stdio.
const serveCounter = () => {
  const io = WebStdio.webStdio(process.stdout, process.stdin)
  acp.agent({ name: "counter" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: "counter", version: "1.0.0" } }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "only" }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params: { sessionId, prompt }, client }) => {
      const words = prompt.flatMap((block) => (block.type === "text" ? block.text.split(/\s+/) : [])).filter(Boolean)
      const update: acp.SessionUpdate = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `That is ${words.length} words.` } }
      await client.notify(acp.methods.client.session.update, { sessionId, update })
      return { stopReason: "end_turn", usage: { inputTokens: words.length, outputTokens: 5, totalTokens: words.length + 5 } }
    })
    .connect(acp.ndJsonStream(io.writable, io.readable))
}

const counter: AcpAgentConfig.AcpAgentConfig = { name: "counter", description: "counts words", command: process.execPath, args: [import.meta.filename, "--acp-agent"] }
const script = {
  rules: [
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "count", prompt: "{{lastUser}}", agent: "acp:counter" } }] } },
    { reply: { text: "My ACP child says: {{lastTool|firstLine}}" } }
  ]
}
const host = (home: string) => Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" } })),
  backends: Effect.all([AcpProvider.makeAcpBackend({ agents: [counter] })]), // the type acp:counter, run through the ProcessLauncher
  model: "scripted:lead"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
  LocalProcessLauncher.layer()
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "Ship the release on Friday." })
  console.log(result.result) // My ACP child says: That is 5 words.
  for (const child of result.subagents) console.log(`${child.name} (${child.agent} on ${child.provider}): ${child.status}, ${child.usage.totalTokens} tokens`) // acp-counter-1 (acp:counter on acp): completed, 10 tokens
})

if (process.argv[2] === "--acp-agent") serveCounter()
else await Effect.runPromise(program.pipe(Effect.provide(host(mkdtempSync(join(tmpdir(), "dsh-acp-parent-"))))))
