// Model aliases, a cheaper default model for children, a fallback when a call names a model
// nobody serves, and cost from a price table, on scripted models. Run: node src/models.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import type { Usage } from "@dsh/core"
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

const delegate = (prompt: string, model?: string) => ({ name: "subagent", arguments: { description: prompt, prompt, agent: "worker", model } })
const scripts = {
  // The lead delegates twice: once on the default model for children, once naming a model no adapter serves.
  lead: {
    rules: [
      { when: { step: 0 }, reply: { toolCalls: [delegate("sum the column"), delegate("check the sum", "gemini-3-pro")], usage: { input: 2000, output: 200 } } },
      { reply: { text: "{{lastTool}}", usage: { input: 2000, output: 200 } } }
    ]
  },
  worker: { rules: [{ reply: { text: "42", usage: { input: 1000, output: 100 } } }] }
}

// US dollars per million tokens, by `provider:model` (how usage events name models).
const prices: Record<string, Usage.Pricing> = {
  "scripted:lead": { inputPerMillion: 3, outputPerMillion: 15 },
  "scripted:worker": { inputPerMillion: 0.8, outputPerMillion: 4 }
}

const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("worker", "You do sums.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "smart",
  subagentModel: "cheap",
  pricing: (spec) => prices[spec]
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-models-")) }),
  // The registry's aliases: `smart` and `cheap` name the two scripts.
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts })], { aliases: { smart: "scripted:lead", cheap: "scripted:worker" } })
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id, model } = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: id, prompt: "add it up" })
  console.log(`lead on ${model}: $${result.cost?.toFixed(4)}`)
  const children = [...(yield* dsh.listChildren(id))].sort((a, b) => a.name.localeCompare(b.name))
  for (const child of children) console.log(`${child.name} on ${child.model}: ${child.status}, $${child.cost?.toFixed(4)}`)
  console.log(result.result.split("\n").find((line) => line.startsWith("Notes:")))
})

Effect.runPromise(program.pipe(Effect.provide(host)))
