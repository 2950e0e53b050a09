import { type AgentDefinition, runTurn } from "@dsh/agent"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { makeSubagents, makeSubagentTree, type ParentInfo, Subagents } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { makeSubagentTool } from "@dsh/tool-subagent"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"

const definition = (name: string, systemPrompt: string): AgentDefinition =>
  ({ name, description: "reads and searches", systemPrompt, override: false, scope: "runtime", source: "example" })
const model = makeScriptedModel({
  rules: [
    { when: { system: "^You explore" }, reply: { text: "It is dsh.toml." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find config", prompt: "Where is the config?", agent: "explore" } }] } },
    { reply: { text: "Found it: {{lastTool|firstLine}}" } }
  ]
})

const program = Effect.gen(function*() {
  const tree = yield* makeSubagentTree({ defaultModel: model, childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt }) })
  const subagents = yield* makeSubagents({ tree, providers: [SpawnProvider], types: [{ name: "explore", description: "reads and searches", provider: "spawn", definition: definition("explore", "You explore.") }] })
  const parent: ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: definition("lead", "You lead.") }

  // The tool of one parent, over its context's `Subagents`: it offers what this parent may use.
  const tool = yield* makeSubagentTool(parent).pipe(Effect.provideService(Subagents, subagents))
  console.log(tool.description.split("\n").at(-1)) // - explore: reads and searches

  const result = yield* runTurn({
    agent: "lead", cwd: process.cwd(), model, systemPrompt: "You lead.", toolbox: Effect.succeed(makeToolbox({ tools: [tool] })),
    history: [], prompt: "Where is our config?", turn: 1,
    onEvent: (event) => Effect.sync(() => {
      if (event.type === "tool-result") console.log(event.output) // It is dsh.toml.\n\n[subagent explore-1 (explore) · completed · 12 tokens · 0.0s]
    })
  })
  console.log(result.result) // Found it: It is dsh.toml.
})

Effect.runPromise(Effect.scoped(program))
