import type { AgentDefinition } from "@dsh/agent"
import { ScriptedModel } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { ControlTools } from "@dsh/tool-subagent"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const definition = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })
const model = ScriptedModel.make({
  rules: [{ when: { lastUser: "^research (.*)" }, reply: { text: "{{1}} is done." } }, { reply: { text: "Sources for {{firstUser}}: the docs." } }]
})

const program = Effect.gen(function*() {
  // Children keep their conversation in the session's store, so they can be continued.
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "lead", cwd: process.cwd(), model: "scripted" })
  const tree = yield* SubagentTree.make({ session, defaultModel: model, childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt }) })
  const subagents = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types: [{ name: "researcher", description: "researches", provider: "spawn", definition: definition("researcher", "You research.") }] })
  const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: definition("lead", "You lead.") }

  // The tools as the lead's model would call them, through its toolbox.
  const toolbox = Toolbox.make({ tools: yield* ControlTools.make(parent).pipe(Effect.provideService(Subagents.Subagents, subagents)) })
  const call = (name: string, args: object) =>
    toolbox.execute({ id: name, name, arguments: JSON.stringify(args) }, { cwd: process.cwd(), agent: "lead" }).pipe(Effect.map((result) => result.content))

  const run = yield* subagents.spawnBackground({ prompt: "research topic A", description: "topic A", agent: "researcher" }, parent)
  console.log(run.status, run.handle) // accepted researcher-1
  console.log(yield* call("wait", { handles: [run.handle], timeoutSeconds: 30 })) // topic A is done. [subagent researcher-1 (researcher) · completed · …]
  console.log(yield* call("send_message", { to: run.handle, message: "and the sources?" })) // Sources for research topic A: the docs. […]
  console.log(yield* call("list_agents", {})) // researcher-1 (researcher) is completed; last activity …
})

const home = mkdtempSync(join(tmpdir(), "dsh-control-"))
Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(FileSessionStore.layer({ home }))))
