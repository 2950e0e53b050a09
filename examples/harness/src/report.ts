// The operator's view from the library: the live tree of a run built from its events, and the
// self-contained HTML report of the session afterwards. Run: node src/report.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
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
import { agent } from "./agents.ts"

const subagent = (description: string, prompt: string) => ({ name: "subagent", arguments: { agent: "researcher", description, prompt } })
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "notes on {{lastUser}}", usage: { input: 40, output: 12 } } },
    { when: { lastUser: "^survey$", step: 0 }, reply: { toolCalls: [subagent("topic A", "topic A"), subagent("topic B", "topic B")] } },
    { reply: { text: "Both topics are covered." } }
  ]
}

const home = mkdtempSync(join(tmpdir(), "dsh-report-"))
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one topic.")] })),
  backends: [SpawnProvider.SpawnProvider],
  model: "scripted:survey"
}).pipe(Layer.provideMerge(Layer.mergeAll(
  FileSessionStore.layer({ home }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { survey: script } })])
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd: process.cwd() })
  // The tree a terminal view would draw, fed by the run's events (main's and every child's).
  const tree = AgentTree.make({ agent: "lead", model: "scripted:survey" })
  const feed = (source: string) => (event: Parameters<typeof tree.apply>[1]) => Effect.map(Clock.currentTimeMillis, (now) => tree.apply(source, event, now))
  const result = yield* dsh.prompt({ sessionId: id, prompt: "survey", onEvent: feed("main"), onChildEvent: (handle, event) => feed(handle)(event) })
  console.log(result.result)
  const now = yield* Clock.currentTimeMillis
  for (const line of TreeText.renderTreeLines(tree, { now, width: 80 })) console.log(line.replace(/\s+\d+(ms|s)\s+/, "  "))
  console.log(TreeText.treeSummary(tree, now).replace(/ · [^·]+$/, ""))

  // The report: read from the store (a reader never takes the session's lease), rendered to one page.
  const report = yield* SessionReport.loadSessionReport(yield* (yield* SessionStore.SessionStore).open(id))
  const file = join(home, `${id}.html`)
  writeFileSync(file, ReportHtml.renderReportHtml(report))
  console.log(`report: ${report.agents.length - 1} subagents, ${report.totals.usage.totalTokens} tokens, statuses ${JSON.stringify(report.totals.byStatus)}`)
  console.log(`written to ${file}`)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
