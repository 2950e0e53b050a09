import type { AgentDefinition } from "@dsh/agent"
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Effect } from "effect"

const definition = (name: string, subagents?: ReadonlyArray<string>): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt: "", subagents, override: false, scope: "runtime", source: "example" })

// A backend is a small record of hooks; interrupting `start` is how a child is cancelled.
const Shouty: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "shouty",
  description: "children that answer in capitals",
  start: ({ request }) => Effect.succeed({ status: "completed", output: request.prompt.toUpperCase(), usage: Usage.make(5, 3) })
}
const types: ReadonlyArray<Vocabulary.AgentType> = [
  { name: "coder", description: "writes code", provider: "shouty", definition: definition("coder") },
  { name: "deployer", description: "deploys", provider: "shouty", definition: definition("deployer") }
]

const program = Effect.gen(function*() {
  const model = ScriptedModel.make({ rules: [] })
  // The tree is shared by a whole session (limits, lane, handles); `Subagents` is one context's view of it.
  const tree = yield* SubagentTree.make({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* Subagents.make({ tree, providers: [Shouty], types })
  // The parent's definition decides whom it may delegate to.
  const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: definition("lead", ["coder"]) }

  console.log((yield* subagents.availableTypes(parent)).map((type) => type.name)) // [ 'coder' ]
  const result = yield* subagents.spawn({ prompt: "fix the bug", description: "fix", agent: "coder" }, parent)
  console.log(result.handle, result.status, result.output) // coder-1 completed FIX THE BUG
  const refused = yield* Effect.flip(subagents.spawn({ prompt: "ship it", description: "ship", agent: "deployer" }, parent))
  console.log(refused.reason, refused.message) // NotAllowed main may not delegate to "deployer"; allowed: coder

  const run = yield* subagents.spawnBackground({ prompt: "write tests", description: "tests", agent: "coder" }, parent)
  const [outcome] = yield* subagents.wait("main", [run.handle], "10 seconds")
  console.log(`${run.status} ${run.handle}, then ${outcome?.status}`) // accepted coder-2, then completed
})

Effect.runPromise(Effect.scoped(program))
