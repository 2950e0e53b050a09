import { type AgentDefinition, Template, TurnLoop } from "@dsh/agent"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Tool, Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { z } from "zod"

// An agent defined in code (agent files on disk are @dsh/agent-files): what it may use, and its
// system prompt, a template rendered on every prompt build.
const agent: AgentDefinition.AgentDefinition = {
  name: "forecaster",
  description: "Answers questions about tomorrow's weather",
  tools: ["forecast"],
  systemPrompt: "You answer weather questions for a user in ${cwd}. Be brief.",
  override: false,
  scope: "runtime",
  source: "runtime:readme"
}

const forecast = Tool.defineTool({
  name: "forecast",
  description: "Tomorrow's forecast for a city.",
  parameters: z.object({ city: z.string().describe("the city") }),
  execute: ({ city }) => Effect.succeed(`${city}: sunny, 24°C`)
})
const shell = Tool.defineTool({ name: "Bash", description: "Runs a command.", parameters: z.object({ command: z.string().describe("the command") }), execute: () => Effect.succeed("") })

// The agent's own tool policy narrows what exists: it may use `forecast`, not `Bash`.
const toolbox = Toolbox.make({ tools: [forecast, shell], policy: agent })
const systemPrompt = Template.renderSystemPrompt(agent.systemPrompt, { cwd: "/home/ana" })
console.log(toolbox.names, systemPrompt) // [ 'forecast' ] You answer weather questions for a user in /home/ana. Be brief.

// The turn loop: model → tools → model, until the model answers without tool calls.
const model = ScriptedModel.make({
  rules: [
    { when: { lastUser: "in (\\w+)", step: 0 }, reply: { toolCalls: [{ name: "forecast", arguments: { city: "{{1}}" } }] } },
    { reply: { text: "Tomorrow in {{lastTool}}" } }
  ]
})
const result = await Effect.runPromise(TurnLoop.runTurn({
  agent: agent.name, cwd: "/home/ana", model, systemPrompt, toolbox: Effect.succeed(toolbox),
  history: [], prompt: "Do I need an umbrella in Lisbon?", turn: 1,
  onEvent: (event) => Effect.sync(() => {
    if (event.type === "tool-call") console.log(`→ ${event.name} ${event.input}`) // → forecast {"city":"Lisbon"}
  })
}))
console.log(result.status, result.result) // completed Tomorrow in Lisbon: sunny, 24°C
