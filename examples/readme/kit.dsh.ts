import { AgentHost } from "@dsh/agent"
import { ConfigFile } from "@dsh/harness"
import { DshHarness, DshListing } from "@dsh/kit/dsh"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// A $DSH_HOME as the dsh CLI reads it: config.toml, one agent file, a scripted model.
const home = mkdtempSync(join(tmpdir(), "dsh-home-"))
mkdirSync(join(home, "agents"))
writeFileSync(join(home, "agents", "researcher.md"), "---\nname: researcher\ndescription: finds answers\n---\nYou research.\n")
writeFileSync(join(home, "lead.json"), JSON.stringify({
  rules: [
    { when: { step: 0, lastUser: "^ask" }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "research", prompt: "the answer", agent: "researcher" } }] } },
    { when: { lastUser: "the answer" }, reply: { text: "The answer is 42." } }
  ],
  fallback: { text: "My researcher says: {{lastTool|firstLine}}" }
}))
writeFileSync(join(home, "config.toml"), `model = "scripted:${join(home, "lead.json")}"\n[permissions]\nallow = ["subagent(researcher)"]\n`)

const place = { env: process.env, cwd: home, home }
// How this harness starts itself again, for `sdk:dsh`/`acp:dsh` children (here: never used).
const install: DshHarness.DshInstall = { self: { command: process.execPath, args: ["my-harness.js"] } }

const program = Effect.gen(function*() {
  const config = yield* ConfigFile.loadHarnessConfigFile(join(home, "config.toml"))
  const listing = yield* DshListing.listing(place, config, install, { cwd: home })
  console.log(listing.agents.map((a) => a.name).includes("researcher")) // true
  const settings = yield* DshHarness.settings(place, config)
  const summary = yield* Effect.gen(function*() {
    const host = yield* AgentHost.AgentHost
    const { id } = yield* host.createSession({ cwd: home })
    return yield* host.prompt({ sessionId: id, prompt: "ask the researcher" })
  }).pipe(Effect.provide(DshHarness.layer(place, settings, install).pipe(Layer.provide(FileSessionStore.layer({ home })))))
  console.log(summary.result) // My researcher says: The answer is 42.
  console.log(summary.subagents.map((c) => `${c.name}: ${c.status}`).join(", ")) // researcher-1: completed
})

await Effect.runPromise(program.pipe(Effect.provide(LocalProcessLauncher.layer()), Effect.scoped))
