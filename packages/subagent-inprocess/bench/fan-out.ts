// Fan-out: 1,000 in-process children at once (lane raised to 1,000), each doing three
// scripted model turns, two of them with a Read tool call, with real persistence.
import { makeScriptedModel } from "@dsh/llm-scripted"
import { testParent } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { setup, workspace } from "./lib/harness.ts"

const CHILDREN = 1000
const childModel = makeScriptedModel({
  rules: [
    { when: { step: 0 }, reply: { text: "reading", toolCalls: [{ name: "Read", arguments: { path: "notes.txt", limit: 5 } }] } },
    { when: { step: 1 }, reply: { text: "reading again", toolCalls: [{ name: "Read", arguments: { path: "notes.txt", offset: 5, limit: 5 } }] } },
    { when: { step: 2 }, reply: { text: "summary: {{lastTool|summary}}" } }
  ]
})

const program = Effect.gen(function*() {
  const { cwd, home } = workspace()
  const { subagents } = yield* setup({ home, cwd, childModel, limits: { maxConcurrent: CHILDREN, maxChildren: CHILDREN } })
  const parent = testParent(childModel, { cwd })
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  const start = performance.now()
  const results = yield* Effect.forEach(
    Array.from({ length: CHILDREN }, (_, i) => i),
    (i) => subagents.spawn({ prompt: `child task ${i}`, description: `child ${i}`, agent: "coder" }, parent),
    { concurrency: "unbounded" }
  )
  const wall = performance.now() - start
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const completed = results.filter((r) => r.status === "completed").length
  const perChildKb = (peak - rssBefore) / 1024 / CHILDREN
  console.log(`fan-out: ${CHILDREN} children (${completed} completed), wall ${(wall / 1000).toFixed(2)} s, ${(CHILDREN / (wall / 1000)).toFixed(0)} children/s, peak memory ${(perChildKb).toFixed(1)} KiB per child (target < 5 s: ${(wall / 5000).toFixed(2)}x of budget)`)
  console.log(JSON.stringify({ bench: "fan-out", children: CHILDREN, completed, wallMs: Math.round(wall), childrenPerSecond: Math.round(CHILDREN / (wall / 1000)), peakKiBPerChild: Number(perChildKb.toFixed(1)), targetMs: 5000 }))
}).pipe(Effect.scoped)

await Effect.runPromise(program)
