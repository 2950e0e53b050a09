import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { DshSdkProvider } from "@dsh/subagent-dsh-sdk"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// One script file for both runtimes: the lead (this process) delegates to sdk:dsh, and the child,
// a `dsh sdk` process on the same model spec (`scripted:<file>`), answers from its own session.
const dir = mkdtempSync(join(tmpdir(), "dsh-sdk-child-"))
const script = join(dir, "script.json")
writeFileSync(script, JSON.stringify({
  rules: [
    { when: { system: "^You lead", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "plan", prompt: "{{lastUser}}", agent: "sdk:dsh" } }] } },
    { when: { system: "^You lead" }, reply: { text: "My dsh child says: {{lastTool|firstLine}}" } },
    { when: { lastUser: "^What did I ask" }, reply: { text: "You asked: {{firstUser}}" } },
    { reply: { text: "Planned in my own process: {{lastUser}}" } }
  ]
}))

// The child runtime: the `dsh` command of @dsh/cli, run with this Node.
const dshMain = fileURLToPath(new URL("dist/main.js", import.meta.resolve("@dsh/cli/package.json")))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" } })),
  backends: Effect.all([DshSdkProvider.makeDshSdkBackend({ command: process.execPath, args: [dshMain, "sdk"] })]), // the type sdk:dsh
  model: `scripted:${script}`
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: join(dir, "home") }),
  ModelRegistry.layerWith([ScriptedAdapter.ScriptedAdapter]),
  LocalProcessLauncher.layer()
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "Plan the release." })
  console.log(result.result) // My dsh child says: Planned in my own process: Plan the release.
  for (const child of result.subagents) {
    console.log(`${child.name} (${child.agent} on ${child.provider}): ${child.status}`) // sdk-dsh-1 (sdk:dsh on dsh-sdk): completed
    // Continued later (cold): a new `dsh sdk` process reloads the child's own session.
    const reply = yield* dsh.sendToChild({ sessionId: session.id, handle: child.name, message: "What did I ask you?" })
    console.log(reply.status, reply.result) // completed You asked: Plan the release.
  }
})

Effect.runPromise(program.pipe(Effect.provide(host)))
