import { ScriptedModel } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, type Scope } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const model = ScriptedModel.make({
  rules: [
    { when: { lastUser: "config" }, reply: { text: "It is dsh.toml." } },
    { when: { lastUser: "format" }, reply: { text: "TOML (you first asked: {{firstUser}})" } }
  ]
})
const explore = { name: "explore", description: "reads and searches", systemPrompt: "You explore.", override: false, scope: "builtin", source: "example" } as const
const types: ReadonlyArray<Vocabulary.AgentType> = [{ name: "explore", description: explore.description, provider: "spawn", definition: explore }]
const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: { ...explore, name: "lead", systemPrompt: "You lead." } }

// A session's children, as one process sees them: its tree, and this context's backends.
const subagentsOf = (sessionId: string) => Effect.gen(function*() {
  const session = yield* (yield* SessionStore.SessionStore).open(sessionId)
  const tree = yield* SubagentTree.make({ session, defaultModel: model, childContext: (child) => Effect.succeed({ tools: [], systemPrompt: child.type.definition.systemPrompt }) })
  return yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types })
})

const home = mkdtempSync(join(tmpdir(), "dsh-spawn-"))
const run = <A, E>(effect: Effect.Effect<A, E, SessionStore.SessionStore | Scope.Scope>) => Effect.runPromise(Effect.scoped(effect).pipe(Effect.provide(FileSessionStore.layer({ home }))))

const sessionId = await run(Effect.gen(function*() {
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "lead", cwd: process.cwd(), model: "scripted" })
  const result = yield* (yield* subagentsOf(session.id)).spawn({ prompt: "Where is the config?", description: "find config", agent: "explore" }, parent)
  console.log(result.handle, result.status, result.output) // explore-1 completed It is dsh.toml.
  return session.id
}))

// Later, in a new process: the child continues cold, from its transcript.
await run(Effect.gen(function*() {
  const reply = yield* (yield* subagentsOf(sessionId)).send("explore-1", "What format is it?", "user")
  if (reply._tag === "Replied") console.log(reply.result.output) // TOML (you first asked: Where is the config?)
}))
