// A wide fan-out from the library: 300 children in one session, with the file store held to
// 16 open transcripts (`maxOpenTranscripts`; the default is half the process's open-file
// limit). Past the budget the least recently used idle transcript is closed and opened again on
// its next append, so a session with more children than the process may open files loses
// nothing. Run: node src/wide.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { OpenFiles } from "@dsh/session/testing"
import { Limits } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"

const CHILDREN = 300
const script = {
  rules: [
    { when: { system: "^You count" }, reply: { text: "counted {{lastUser}}" } },
    {
      when: { step: 0 },
      reply: {
        toolCalls: Array.from({ length: CHILDREN }, (_, i) => ({
          name: "subagent",
          arguments: { agent: "counter", description: `count ${i}`, prompt: `item ${i}` }
        }))
      }
    },
    { reply: { text: "all counted" } }
  ]
}

const home = mkdtempSync(join(tmpdir(), "dsh-wide-"))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("counter", "You count one item.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:wide"
}).pipe(Layer.provideMerge(Layer.mergeAll(
  FileSessionStore.layer({ home, maxOpenTranscripts: 16 }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { wide: script } })]),
  Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxConcurrent: CHILDREN, maxChildren: CHILDREN })
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd: process.cwd() })
  // Counted while the session is still held (a finished session's files are let go anyway).
  let mostOpen = 0
  const sampler = setInterval(() => (mostOpen = Math.max(mostOpen, OpenFiles.under(home).length)), 1)
  const result = yield* dsh.prompt({ sessionId: id, prompt: "count them all" })
  clearInterval(sampler)
  const completed = result.subagents.filter((c) => c.status === "completed").length
  const session = yield* (yield* SessionStore.SessionStore).open(id)
  let whole = 0
  for (const c of result.subagents) {
    const { records } = yield* (yield* session.child(c.name)).transcript.read
    if (records.some((r) => r.type === "turn-end")) whole++
  }
  console.log(`${result.result}: ${completed} of ${CHILDREN} children completed, ${whole} transcripts whole`)
  console.log(`open transcripts at most: ${mostOpen} (budget 16)`)
})

await Effect.runPromise(program.pipe(Effect.provide(host)))
