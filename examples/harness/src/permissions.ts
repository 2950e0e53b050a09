// Permission rules for a whole tree and Bash in the sandbox, on the scripted model: the lead
// delegates to a worker, whose calls are decided by the tree's rules (allow, deny, or a
// question answered in code), every decision recorded as a `permission` event of the worker.
// Run: node src/permissions.ts
import { AgentCatalog, AgentHost, TranscriptView } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { LocalProcessLauncher, ProcessLauncher, Sandbox } from "@dsh/subprocess"
import { Asker } from "@dsh/tools"
import { BuiltinTools } from "@dsh/tools-builtin"
import { Effect, Layer } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"

const script = {
  rules: [
    { when: { system: "^You lead", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "worker", description: "chores", prompt: "do the chores" } }] } },
    {
      when: { system: "^You work", step: 0 },
      reply: {
        toolCalls: [
          { name: "Bash", arguments: { command: "echo hello from the sandbox" } },
          { name: "Bash", arguments: { command: "rm -rf scratch" } },
          { name: "Write", arguments: { path: "note.txt", content: "written after a question\n" } }
        ]
      }
    },
    { when: { system: "^You work" }, reply: { text: "chores done" } },
    { reply: { text: "the worker says: {{lastTool|firstLine}}" } }
  ]
}

// Who answers what the rules leave open: here, code that allows writing .txt files (a terminal,
// an ACP client or an SDK client would ask a person). Questions come one at a time.
const asker: Asker.AskerShape = {
  ask: (question) =>
    Effect.sync(() => console.log(`asked: ${Asker.questionText(question)}`)).pipe(
      Effect.as(question.specifier?.endsWith(".txt") === true ? { allow: true, by: "example" } : { allow: false, by: "example" })
    )
}

const cwd = mkdtempSync(join(tmpdir(), "dsh-permissions-"))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("worker", "You work.")] })),
  backends: [SpawnProvider.SpawnProvider],
  // Bash of every agent runs under bubblewrap when it works here (auto), unconfined with a warning otherwise.
  tools: Effect.gen(function*() {
    const sandbox = yield* Sandbox.make({ mode: "auto", network: false, writable: [] }, yield* ProcessLauncher.ProcessLauncher)
    return yield* BuiltinTools.makeWith({ sandbox })
  }),
  // The rules of every agent of a session: deny beats ask beats allow beats the mode. Delegating
  // to a child with write tools asks in the default mode; `subagent(worker)` allows it.
  permissions: { mode: "default", allow: ["subagent(worker)", "Bash(echo *)"], deny: ["Bash(rm *)"] },
  model: "scripted:permissions"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-permissions-home-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { permissions: script } })]),
  LocalProcessLauncher.layer()
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd })
  const result = yield* dsh.prompt({
    sessionId: id,
    prompt: "get the chores done",
    onChildEvent: (handle, event) => Effect.sync(() => event.type === "permission" && console.log(`${handle} ${TranscriptView.eventLine(event)}`))
  }).pipe(Effect.provideService(Asker.Asker, asker))
  console.log(`lead: ${result.result}`)
  console.log(`note.txt written: ${existsSync(join(cwd, "note.txt"))}`)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
