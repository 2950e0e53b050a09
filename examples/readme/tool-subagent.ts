import { type AgentDefinition, TurnLoop } from "@dsh/agent"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { SubagentTool } from "@dsh/tool-subagent"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"

const definition = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: "reads and searches", systemPrompt, override: false, scope: "runtime", source: "example" })
const model = ScriptedModel.make({
  rules: [
    { when: { system: "^You explore" }, reply: { text: "It is dsh.toml." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find config", prompt: "Where is the config?", agent: "explore" } }] } },
    { reply: { text: "Found it: {{lastTool|firstLine}}" } }
  ]
})

const program = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({ defaultModel: model, childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt }) })
  const subagents = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types: [{ name: "explore", description: "reads and searches", provider: "spawn", definition: definition("explore", "You explore.") }] })
  const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: definition("lead", "You lead.") }

  // The tool of one parent, over its context's `Subagents`: it offers what this parent may use.
  const tool = yield* SubagentTool.make(parent).pipe(Effect.provideService(Subagents.Subagents, subagents))
  console.log(tool.description.split("\n").at(-1)) // - explore: reads and searches

  const result = yield* TurnLoop.runTurn({
    agent: "lead", cwd: process.cwd(), model, systemPrompt: "You lead.", toolbox: Effect.succeed(Toolbox.make({ tools: [tool] })),
    history: [], prompt: "Where is our config?", turn: 1,
    onEvent: (event) => Effect.sync(() => {
      if (event.type === "tool-result") console.log(event.output) // It is dsh.toml.\n\n[subagent explore-1 (explore) · completed · 12 tokens · 0.0s]
    })
  })
  console.log(result.result) // Found it: It is dsh.toml.
})

Effect.runPromise(Effect.scoped(program))
