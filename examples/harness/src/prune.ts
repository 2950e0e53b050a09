// Keeping a session store small from the library: a child with cleanup "delete" is archived as
// soon as its result is back, and `pruneSessions` archives settled children and deletes old
// sessions, never touching one that a process runs. Run: node src/prune.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Archiving, SessionMaintenance } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"

const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: `${"notes ".repeat(400)}on {{lastUser}}` } },
    {
      when: { step: 0 },
      reply: {
        toolCalls: [
          { name: "subagent", arguments: { agent: "researcher", description: "throwaway", prompt: "quick look", cleanup: "delete" } },
          { name: "subagent", arguments: { agent: "researcher", description: "keeper", prompt: "deep look" } }
        ]
      }
    },
    { reply: { text: "done" } }
  ]
}

const home = mkdtempSync(join(tmpdir(), "dsh-prune-"))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one topic.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:prune"
}).pipe(Layer.provideMerge(Layer.mergeAll(
  FileSessionStore.layer({ home }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { prune: script } })]),
  // The owner archives settled children an hour after they ended (0 would be never).
  Layer.succeed(Archiving.SubagentArchiving, { afterMinutes: 60 })
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  for (const _ of [1, 2]) {
    const { id } = yield* dsh.createSession({ cwd: process.cwd() })
    yield* dsh.prompt({ sessionId: id, prompt: "research" })
  }
  const store = yield* SessionStore.SessionStore
  for (const s of yield* store.list) {
    const archived = yield* (yield* store.open(s.id)).archivedChildren
    console.log(`after the run: ${archived.length} child archived (cleanup: delete), ${archived[0]!.bytes} bytes → ${archived[0]!.archivedBytes}`)
  }
  // Settled children archived now, sessions older than 30 days deleted: first as a dry run.
  const plan = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "0 millis", dryRun: true })
  console.log(`dry run: would archive ${plan.children.length} children, delete ${plan.sessions.length} sessions`)
  const done = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "0 millis" })
  console.log(`pruned: archived ${done.children.length} children, freed ${done.freedBytes > 0 ? "some" : "no"} bytes`)
  // Everything is older than no time at all: every session goes.
  const gone = yield* SessionMaintenance.pruneSessions({ olderThan: "0 millis" })
  console.log(`deleted ${gone.sessions.length} sessions; ${(yield* store.list).length} left`)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
