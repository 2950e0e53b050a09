// (a) A main agent on the scripted model hands a task to an in-process child and prints what
// comes back. Run: node src/delegate.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"

// One script plays both agents: the child is recognised by its system prompt.
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find the answer", prompt: "What is the answer?", agent: "researcher" } }] } },
    { reply: { text: "My researcher says: {{lastTool|firstLine}}" } }
  ]
}

const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:example"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-example-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { example: script } })])
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "What is the answer?" })
  console.log(result.result)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
