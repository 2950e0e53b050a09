// A dsh harness whose main agent delegates to a remote agent over A2A (`a2a:researcher`), and
// the remote agent itself: a dsh served over A2A in the same process (any A2A agent works the
// same: Google ADK's `toA2a`, an @a2a-js/sdk server, `dsh a2a --listen`). Run: node src/main.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { A2aAgentConfig, A2aProvider } from "@dsh/subagent-a2a"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serveResearcher } from "./researcher.ts"

const lead = {
  rules: [
    // A follow-up goes to the same child: send_message continues its A2A conversation.
    { when: { step: 0, lastUser: "^then" }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "a2a-researcher-1", message: "{{lastUser}}" } }] } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "research", prompt: "{{lastUser}}", agent: "a2a:researcher" } }] } },
    { reply: { text: "Lead: {{lastTool|firstLine}}" } }
  ]
}

const program = Effect.gen(function*() {
  const researcherHome = mkdtempSync(join(tmpdir(), "dsh-a2a-researcher-"))
  const served = yield* serveResearcher(researcherHome)
  console.log(`researcher served over A2A at ${served.url}`)

  // The card is read once (bounded) and checked; an agent whose card cannot be read is no type,
  // with its reason in `statuses`.
  const backend = yield* A2aProvider.makeA2aBackend({ agents: A2aAgentConfig.a2aAgents([{ name: "researcher", url: served.url }]) })
  for (const s of backend.statuses) console.log(`a2a:${s.name}: ${s.status}`)

  const harness = Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" } })),
    backends: [backend],
    model: "scripted:lead"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-a2a-lead-")) }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead } })]),
    LocalProcessLauncher.layer()
  )))

  yield* Effect.gen(function*() {
    const dsh = yield* AgentHost.AgentHost
    const session = yield* dsh.createSession({ cwd: process.cwd() })
    const first = yield* dsh.prompt({ sessionId: session.id, prompt: "tide tables in Lisbon" })
    console.log(first.result)
    for (const child of first.subagents) console.log(`${child.name} (${child.agent} on ${child.provider}): ${child.status}, ${child.usage.totalTokens} tokens`)
    // send_message continues the same A2A conversation (its contextId): one session on the researcher's side.
    const second = yield* dsh.prompt({ sessionId: session.id, prompt: "then the best month to visit" })
    console.log(second.result)
    console.log(`researcher sessions: ${readdirSync(join(researcherHome, "a2a", "contexts")).length}`)
  }).pipe(Effect.provide(harness))
})

await Effect.runPromise(Effect.scoped(program))
