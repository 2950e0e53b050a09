import type { AgentDefinition } from "@dsh/agent"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { InProcessDriver } from "@dsh/subagent-inprocess"
import { Effect } from "effect"

// A backend of your own on the shared driver: the child's turn loop runs in this process,
// in its own context (tools, system prompt, transcript), with a reminder before its task.
const BriefProvider: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "brief",
  description: "an in-process child that is reminded to be brief",
  start: (context) => InProcessDriver.runInProcess({ context, prompt: `Be brief.\n\n${context.request.prompt}` })
}

const definition = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })
const types: ReadonlyArray<Vocabulary.AgentType> = [{ name: "summarizer", description: "summarizes", provider: "brief", definition: definition("summarizer", "You summarize.") }]
const model = ScriptedModel.make({ rules: [{ when: { system: "^You summarize" }, reply: { text: "I was told: {{lastUser|firstLine}}" } }] })

const program = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({
    defaultModel: model,
    // The harness decides what exists in each child's context; the agent type's policy narrows it.
    childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt }),
    onChildEvent: (handle, event) => Effect.sync(() => {
      if (event.type === "turn-start") console.log(`${handle} got ${JSON.stringify(event.prompt)}`) // summarizer-1 got "Be brief.\n\nSummarize the changelog."
    })
  })
  const subagents = yield* Subagents.make({ tree, providers: [BriefProvider], types })
  const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: definition("lead", "You lead.") }
  const result = yield* subagents.spawn({ prompt: "Summarize the changelog.", description: "summary", agent: "summarizer" }, parent)
  console.log(result.status, result.output) // completed I was told: Be brief.
})

Effect.runPromise(Effect.scoped(program))
