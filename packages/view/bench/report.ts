/**
 * Report benchmark: the HTML report of a session with 1,000 children (a tenth of them with a
 * child of their own), each with a dozen transcript records, on the file store. The baseline,
 * measured in the same run, is what any reader of the session pays: its state and every
 * transcript read through the store. Then `loadSessionReport` (that reading plus the model) and
 * `renderReportHtml`. Medians of `runs`.
 *
 *   node --conditions=@dsh/source packages/view/bench/report.ts [children] [runs]
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Usage } from "@dsh/core"
import { FileSessionStore } from "@dsh/session"
import { Samples } from "@dsh/session/testing"
import { Records } from "@dsh/subagent"
import { Effect } from "effect"
import { ReportHtml, SessionReport } from "../src/index.ts"

const children = Number(process.argv[2] ?? 1000)
const runs = Number(process.argv[3] ?? 5)

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

const program = Effect.scoped(Effect.gen(function*() {
  const home = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-bench-report-")))
  const store = yield* FileSessionStore.make({ home })
  const session = yield* store.create({ agent: "lead", cwd: "/work", model: "scripted", id: "bench" })
  const t0 = Date.parse("2026-11-30T10:00:00.000Z")
  const iso = (ms: number) => new Date(ms).toISOString()
  const descriptors: Record<string, Records.SubagentDescriptor> = {}
  for (let i = 1; i <= children; i++) {
    const handle = `explore-${i}`
    const parent = i > children * 0.9 ? `explore-${i - Math.floor(children * 0.9)}` : "main"
    const status = i % 17 === 0 ? "failed" : i % 29 === 0 ? "timeout" : "completed"
    const queued = t0 + i * 50
    descriptors[handle] = {
      handle, agent: "explore", provider: "spawn", parent, depth: parent === "main" ? 1 : 2, status, description: `task ${i}`,
      runId: `run-${i}`, createdAt: iso(queued), updatedAt: iso(queued + 4000), queuedAt: iso(queued), startedAt: iso(queued + 300),
      endedAt: iso(queued + 4000), usage: Usage.make(1000 + i, 100)
    }
    const events = [...Samples.sampleTurnEvents(i), { type: "usage" as const, model: "m", usage: Usage.make(1000 + i, 100) }]
    const child = yield* session.child(handle)
    for (const e of events) yield* child.transcript.append(e)
    yield* session.transcript.append({ type: "subagent-start", handle, agent: "explore", provider: "spawn", runId: `run-${i}`, background: false, description: `task ${i}` })
    yield* session.transcript.append({ type: "subagent-end", handle, runId: `run-${i}`, status, usage: Usage.make(1000 + i, 100), durationMs: 3700, result: "done" })
  }
  yield* session.updateState((s) => ({ ...s, subagents: descriptors }))

  const baseline: Array<number> = []
  const load: Array<number> = []
  const render: Array<number> = []
  let size = 0
  for (let r = 0; r < runs; r++) {
    // Fresh stores each run: nothing cached from the run before.
    const reader = yield* (yield* FileSessionStore.make({ home })).open("bench")
    let start = performance.now()
    const state = yield* reader.readState
    yield* reader.transcript.read
    yield* Effect.forEach(Records.decodeDescriptors(state).records, (d) => Effect.flatMap(reader.child(d.handle), (c) => c.transcript.read), { concurrency: 8, discard: true })
    baseline.push(performance.now() - start)
    const again = yield* (yield* FileSessionStore.make({ home })).open("bench")
    start = performance.now()
    const report = yield* SessionReport.loadSessionReport(again)
    load.push(performance.now() - start)
    start = performance.now()
    const html = ReportHtml.renderReportHtml(report)
    render.push(performance.now() - start)
    size = Buffer.byteLength(html)
  }
  yield* Effect.promise(() => rm(home, { recursive: true, force: true }))
  const b = median(baseline)
  const l = median(load)
  const h = median(render)
  console.log(`report: ${children} children: load ${l.toFixed(0)} ms vs ${b.toFixed(0)} ms to read the session's state and transcripts (${(l / b).toFixed(2)}x), render ${h.toFixed(0)} ms, ${(size / 1024 / 1024).toFixed(2)} MB of HTML; ${(((l + h) / b)).toFixed(2)}x the reading alone end to end`)
  console.log(JSON.stringify({ bench: "report", children, runs, medianReadMs: Math.round(b), medianLoadMs: Math.round(l), medianRenderMs: Math.round(h), htmlBytes: size, loadRatioToRead: Number((l / b).toFixed(2)), totalRatioToRead: Number(((l + h) / b).toFixed(2)) }))
}))

await Effect.runPromise(program)
