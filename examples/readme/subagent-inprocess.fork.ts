import type { AgentDefinition } from "@dsh/agent"
import { Messages } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { ForkProvider, ForkSeed } from "@dsh/subagent-inprocess"
import { Effect } from "effect"

// The parent's conversation so far: its last message delegates (the `subagent` tool fills
// `history` and `systemPrompt` in by itself; here they are given directly).
const history: ReadonlyArray<Messages.Message> = [
  Messages.userMessage("We ship v2 on Friday."),
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "subagent", arguments: "{\"agent\":\"fork\"}" }] }
]
console.log(ForkSeed.forkSeed(history).map((message) => message.role).join(", ")) // user, assistant, tool, user (the seed: call closed, then a notice)

const model = ScriptedModel.make({ rules: [{ reply: { text: "Knowing \"{{firstUser}}\", I did: {{lastUser}}" } }] })
const lead: AgentDefinition.AgentDefinition = { name: "lead", description: "the lead", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" }
const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: lead, history: Effect.succeed(history), systemPrompt: "You lead." }

const program = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  // The backend brings its own agent type, `fork`.
  const subagents = yield* Subagents.make({ tree, providers: [ForkProvider.ForkBackend.provider], types: ForkProvider.ForkBackend.types })
  const result = yield* subagents.spawn({ prompt: "draft the changelog", description: "changelog", agent: "fork" }, parent)
  console.log(result.handle, result.status, result.output) // fork-1 completed Knowing "We ship v2 on Friday.", I did: draft the changelog

  // A fork keeps its parent's model: an override is refused with a note.
  const other = yield* subagents.spawn({ prompt: "recap", description: "recap", agent: "fork", model: "openai:gpt-4.1" }, parent)
  console.log(other.status, other.notes) // failed a fork keeps its parent's model; drop the model override or use another agent type
})

Effect.runPromise(Effect.scoped(program))
