import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import type { Events } from "@dsh/core"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { AgentTree, ReportHtml, SessionReport, TreeText } from "@dsh/view"
import { Clock, Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })
const ask = (topic: string) => ({ name: "subagent", arguments: { agent: "researcher", description: topic, prompt: topic } })
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "notes on {{lastUser}}" } },
    { when: { step: 0 }, reply: { toolCalls: [ask("topic A"), ask("topic B")] } },
    { reply: { text: "done" } }
  ]
}
const home = mkdtempSync(join(tmpdir(), "dsh-view-"))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:example"
}).pipe(Layer.provideMerge(Layer.mergeAll(
  FileSessionStore.layer({ home }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { example: script } })])
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd: process.cwd() })

  // A live tree of the agents, fed by the run's events: redraw it as often as you like.
  const tree = AgentTree.make({ agent: "lead", model: "scripted:example" })
  const feed = (source: string, event: Events.AgentEvent) => Effect.map(Clock.currentTimeMillis, (now) => tree.apply(source, event, now))
  yield* dsh.prompt({ sessionId: id, prompt: "survey", onEvent: (e) => feed("main", e), onChildEvent: feed })
  const now = yield* Clock.currentTimeMillis
  for (const row of TreeText.treeRows(tree, now)) console.log(`${row.guide}${row.handle} ${row.status}`)
  // main completed
  // ├─ researcher-… completed
  // └─ researcher-… completed

  // One self-contained HTML page of the session: tree, timeline, tokens, every transcript.
  const report = yield* SessionReport.loadSessionReport(yield* (yield* SessionStore.SessionStore).open(id))
  writeFileSync(join(home, "report.html"), ReportHtml.renderReportHtml(report))
  console.log(report.agents.map((a) => `${a.handle}:${a.status}`).sort().join(" ")) // main:completed researcher-1:completed researcher-2:completed
})

Effect.runPromise(program.pipe(Effect.provide(host)))
