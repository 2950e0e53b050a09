import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })

// One script plays both agents: the lead delegates, the researcher (known by its prompt) answers.
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find the answer", prompt: "What is the answer?", agent: "researcher" } }] } },
    { reply: { text: "My researcher says: {{lastTool|firstLine}}" } }
  ]
}

const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
  backends: [SpawnProvider.SpawnProvider], // + ForkBackend, ACP or dsh-sdk backends, your own
  tools: [], // e.g. makeBuiltinTools from @dsh/tools-builtin
  model: "scripted:example"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-harness-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { example: script } })])
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "What is the answer?" })
  console.log(result.result) // My researcher says: The answer is 42.
  for (const child of result.subagents) console.log(`${child.name} (${child.agent} on ${child.provider}): ${child.status}`) // researcher-1 (researcher on spawn): completed
})

Effect.runPromise(program.pipe(Effect.provide(host)))
