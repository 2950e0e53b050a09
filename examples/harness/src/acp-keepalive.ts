// An ACP child continued warm: the lead delegates to an ACP agent, then messages it again
// (`send_message`); the same process and ACP session answer, because a finished child stays
// idle for `keepAlive`. The agent is this file run with `--acp-agent`: a tiny agent built with
// the ACP SDK that, like some vendor agents, reports usage only in `usage_update` and never
// exits when its stdin closes (dsh closes it in the background; the result never waits).
// Run: node src/acp-keepalive.ts
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
import { agent } from "./agents.ts"

/** The child: remembers what it was told in its session, answers with its pid. */
const serveNotes = () => {
  const io = WebStdio.webStdio(process.stdout, process.stdin)
  const notes: Array<string> = []
  const connection = acp.agent({ name: "notes" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: "notes", version: "1.0.0" } }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "notes-session" }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params: { sessionId, prompt }, client }) => {
      const text = prompt.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ")
      const answer = text.startsWith("remember: ") ? (notes.push(text.slice(10)), "noted") : `you told me: ${notes.join("; ")}`
      const say: acp.SessionUpdate = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${answer} (pid ${process.pid}, turn ${notes.length + (answer === "noted" ? 0 : 1)})` } }
      await client.notify(acp.methods.client.session.update, { sessionId, update: say })
      const usage: acp.SessionUpdate = { sessionUpdate: "usage_update", used: 120, size: 200_000, cost: { amount: 0.002 * (notes.length + 1), currency: "USD" } }
      await client.notify(acp.methods.client.session.update, { sessionId, update: usage })
      return { stopReason: "end_turn" }
    })
    .connect(acp.ndJsonStream(io.writable, io.readable))
  // Like Codex: stdin's end does not end it.
  void connection.closed.then(() => setInterval(() => undefined, 60_000))
}

const notes: AcpAgentConfig.AcpAgentConfig = { name: "notes", description: "keeps notes", command: process.execPath, args: [import.meta.filename, "--acp-agent"] }
const script = {
  rules: [
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "notes", prompt: "remember: {{lastUser}}", agent: "acp:notes" } }] } },
    { when: { step: 1 }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "acp-notes-1", message: "what do you remember?" } }] } },
    { reply: { text: "{{lastTool|firstLine}}" } }
  ]
}
const host = (home: string) =>
  Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead.") })),
    // keepAlive: how long a finished ACP child waits, warm, for the next message (the default is 60 s).
    backends: Effect.all([AcpProvider.makeAcpBackend({ agents: [notes], keepAlive: "30 seconds" })]),
    model: "scripted:lead"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
    LocalProcessLauncher.layer()
  )))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "the launch is on Friday" })
  console.log(result.result) // you told me: the launch is on Friday (pid N, turn 2) — the same pid as the first answer
  for (const child of result.subagents) console.log(`${child.name}: ${child.status}, ${child.usage.totalTokens} tokens (from usage_update)`) // acp-notes-1: completed, 120 tokens (its last run)
})

if (process.argv[2] === "--acp-agent") serveNotes()
else await Effect.runPromise(program.pipe(Effect.provide(host(mkdtempSync(join(tmpdir(), "dsh-acp-keepalive-"))))))
