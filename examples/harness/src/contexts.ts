// (b) Two agent contexts over one session tree, each with its own backends: the main agent
// may run children in process and on a remote stand-in; a sandboxed context only in process.
// Run: node src/contexts.ts
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider } from "@dsh/subagent/testing"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect } from "effect"
import { agent } from "./agents.ts"

const model = ScriptedModel.make({ rules: [{ reply: { text: "done in process: {{lastUser}}" } }] })
const types: ReadonlyArray<Vocabulary.AgentType> = [
  { name: "local", description: "runs in process", provider: "spawn", definition: agent("local", "You work locally.") },
  { name: "remote", description: "runs elsewhere", provider: "remote", definition: agent("remote", "You work remotely.") }
]
// Stands in for an out-of-process backend (ACP, SSH, a cluster): only the name matters here.
const remote = FixtureProvider.make({ name: "remote", reply: ({ prompt }) => ({ output: `done remotely: ${prompt}`, tokens: 5 }) })

const program = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({
    defaultModel: model,
    childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt })
  })
  const main = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider, remote], types })
  const sandboxed = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types })
  const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: agent("main", "You lead.") }

  for (const [name, context] of [["main", main], ["sandboxed", sandboxed]] as const) {
    const offered = (yield* context.availableTypes(parent)).map((t) => t.name)
    console.log(`${name} context offers: ${offered.join(", ")}`)
    for (const type of ["local", "remote"]) {
      const outcome = yield* context.spawn({ prompt: `task for ${type}`, description: type, agent: type }, parent).pipe(
        Effect.map((r) => `${r.handle} ${r.status}: ${r.output}`),
        Effect.catchTag("SubagentError", (e) => Effect.succeed(`refused (${e.reason}): ${e.message}`))
      )
      console.log(`  ${type}: ${outcome}`)
    }
  }
})

Effect.runPromise(Effect.scoped(program))
