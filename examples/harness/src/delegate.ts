// (a) A main agent on the scripted model hands a task to an in-process child and prints
// what comes back. Run: node src/delegate.ts
import { type AgentDefinition, runTurn } from "@dsh/agent"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { makeSubagents, makeSubagentTree, type ParentInfo } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-spawn"
import { makeSubagentTool } from "@dsh/tool-subagent"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"

// One script plays both agents: the child is recognised by its system prompt.
const model = makeScriptedModel({
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    {
      when: { step: 0 },
      reply: { toolCalls: [{ name: "subagent", arguments: { description: "find the answer", prompt: "What is the answer?", agent: "researcher" } }] }
    },
    { reply: { text: "My researcher says: {{lastTool}}" } }
  ]
})

const researcher: AgentDefinition = {
  name: "researcher",
  description: "answers one question",
  systemPrompt: "You research one question and answer it.",
  override: false,
  scope: "runtime",
  source: "example"
}

const program = Effect.gen(function*() {
  // The tree is what every context of one session shares: limits, lane, unique handles.
  const tree = yield* makeSubagentTree({
    defaultModel: model,
    childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt })
  })
  // The main agent's context: which backends and agent types exist here.
  const subagents = yield* makeSubagents({
    tree,
    providers: [SpawnProvider],
    types: [{ name: "researcher", description: researcher.description, provider: "spawn", definition: researcher }]
  })
  const parent: ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model }
  const toolbox = makeToolbox({ tools: [yield* makeSubagentTool(subagents, parent)] })
  const turn = yield* runTurn({
    agent: "main",
    cwd: process.cwd(),
    model,
    systemPrompt: "You are the main agent. Delegate research.",
    toolbox: Effect.succeed(toolbox),
    history: [],
    prompt: "What is the answer?",
    turn: 0,
    onEvent: (event) => event.type === "subagent-end" ? Effect.log(`${event.handle} ${event.status}`) : Effect.void
  })
  console.log(turn.result)
})

Effect.runPromise(Effect.scoped(program))
