import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { A2aAgentConfig, A2aProvider } from "@dsh/subagent-a2a"
import { serveEchoAgent } from "@dsh/subagent-a2a/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// The remote agent: any A2A agent by its URL. Here, a tiny echo agent on @a2a-js/sdk's own
// server classes, on 127.0.0.1 at a free port.
const echo = await serveEchoAgent()

const script = {
  rules: [
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "echo", prompt: "echo {{lastUser}}", agent: "a2a:echo" } }] } },
    { reply: { text: "My A2A child says: {{lastTool|firstLine}}" } }
  ]
}
const host = (home: string) => Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" } })),
  // Reads each agent's card once (bounded): the type a2a:echo, described from the card.
  backends: Effect.all([A2aProvider.makeA2aBackend({ agents: A2aAgentConfig.a2aAgents([{ name: "echo", url: echo.url }]) })]),
  model: "scripted:lead"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
  LocalProcessLauncher.layer()
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "Ship it on Friday." })
  console.log(result.result) // My A2A child says: Ship it on Friday.
  for (const child of result.subagents) console.log(`${child.name} (${child.agent} on ${child.provider}): ${child.status}, ${child.usage.totalTokens} tokens`) // a2a-echo-1 (a2a:echo on a2a): completed, 8 tokens
})

await Effect.runPromise(program.pipe(Effect.provide(host(mkdtempSync(join(tmpdir(), "dsh-a2a-parent-"))))))
await echo.close()
