// Fan-out: 1,000 in-process children at once (lane raised to as many), each doing three
// scripted model turns, two of them with a Read tool call, with real persistence (the file
// store; `--store memory` for the memory one). `--children 10000` for the 10,000-child target.
import { ScriptedModel } from "@dsh/llm-scripted"
import { Fixtures } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { loadavg } from "node:os"
import { setup, workspace } from "./lib/harness.ts"

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const CHILDREN = Number(arg("--children") ?? 1000)
const STORE = arg("--store") === "memory" ? "memory" as const : "file" as const
// Targets of issue 24: 1,000 children in < 5 s; 10,000 in < 10 s at < 100 KiB of peak memory each.
const TARGET_MS = CHILDREN > 1000 ? 10_000 : 5000
const TARGET_KIB = 100
// `--instant`: each child answers at once (one model turn, no tool), the 10,000-child target's model.
const INSTANT = process.argv.includes("--instant")
const childModel = INSTANT ? ScriptedModel.make({ rules: [], fallback: { text: "done" } }) : ScriptedModel.make({
  rules: [
    { when: { step: 0 }, reply: { text: "reading", toolCalls: [{ name: "Read", arguments: { path: "notes.txt", limit: 5 } }] } },
    { when: { step: 1 }, reply: { text: "reading again", toolCalls: [{ name: "Read", arguments: { path: "notes.txt", offset: 5, limit: 5 } }] } },
    { when: { step: 2 }, reply: { text: "summary: {{lastTool|summary}}" } }
  ]
})

const program = Effect.gen(function*() {
  const { cwd, home } = workspace()
  const { subagents } = yield* setup({ home, cwd, childModel, store: STORE, limits: { maxConcurrent: CHILDREN, maxChildren: CHILDREN } })
  const parent = Fixtures.testParent(childModel, { cwd })
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  const start = performance.now()
  const cpuBefore = process.cpuUsage()
  const results = yield* Effect.forEach(
    Array.from({ length: CHILDREN }, (_, i) => i),
    (i) => subagents.spawn({ prompt: `child task ${i}`, description: `child ${i}`, agent: "coder" }, parent),
    { concurrency: "unbounded" }
  )
  const wall = performance.now() - start
  const cpu = process.cpuUsage(cpuBefore)
  // On a shared machine the wall clock waits for other processes too; CPU time is this run's own.
  const cpuMs = (cpu.user + cpu.system) / 1000
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const completed = results.filter((r) => r.status === "completed").length
  const perChildKb = (peak - rssBefore) / 1024 / CHILDREN
  console.log(`fan-out: ${CHILDREN} children (${completed} completed, ${STORE} store${INSTANT ? ", instant model" : ""}), wall ${(wall / 1000).toFixed(2)} s, CPU ${(cpuMs / 1000).toFixed(2)} s, ${(CHILDREN / (wall / 1000)).toFixed(0)} children/s, peak memory ${(perChildKb).toFixed(1)} KiB per child (target < ${TARGET_MS / 1000} s: ${(wall / TARGET_MS).toFixed(2)}x of budget; < ${TARGET_KIB} KiB: ${(perChildKb / TARGET_KIB).toFixed(2)}x; load average ${loadavg()[0]?.toFixed(2)})`)
  console.log(JSON.stringify({ bench: CHILDREN === 1000 && STORE === "file" && !INSTANT ? "fan-out" : `fan-out-${CHILDREN}-${STORE}${INSTANT ? "-instant" : ""}`, children: CHILDREN, completed, wallMs: Math.round(wall), cpuMs: Math.round(cpuMs), childrenPerSecond: Math.round(CHILDREN / (wall / 1000)), peakKiBPerChild: Number(perChildKb.toFixed(1)), targetMs: TARGET_MS, targetKiBPerChild: TARGET_KIB }))
}).pipe(Effect.scoped)

await Effect.runPromise(program)
