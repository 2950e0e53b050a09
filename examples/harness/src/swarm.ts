// The swarm tool: one agent type and one prompt over a list of items, a child each, run through
// the lane; the lead gets a table when all have settled. Run: node src/swarm.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { Limits } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"

const script = {
  rules: [
    // A reviewer answers for the file in its prompt; one of them fails.
    { when: { system: "^You review", lastUser: "broken" }, reply: { error: { reason: "ServerError" as const, detail: "the model fell over" } } },
    { when: { system: "^You review", lastUser: "^Review (\\S+)" }, reply: { text: "{{1}} looks fine" } },
    // The lead fans out once, then passes the table on.
    {
      when: { step: 0 },
      reply: { toolCalls: [{ name: "swarm", arguments: { agent: "reviewer", prompt: "Review {{item}} for style.", items: ["a.ts", "b.ts", "broken.ts", "d.ts"] } }] }
    },
    { reply: { text: "{{lastTool}}" } }
  ]
}

const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("reviewer", "You review one file.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:swarm"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-swarm-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { swarm: script } })]),
  // Two children at a time; the others wait in the lane.
  Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxConcurrent: 2 })
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: id, prompt: "review the files" })
  console.log(result.result.split("\n\nEvery child")[0])
  // Each child stays continuable by its handle.
  const again = yield* dsh.sendToChild({ sessionId: id, handle: "reviewer-4", message: "Review d.ts again" })
  console.log(`reviewer-4, again: ${again.result}`)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
