// Delegation overhead: from the parent's `subagent` tool call to the child's first model
// request, on the scripted model, with the memory store and with real persistence (the file
// store). Median and p99 over many runs. `--store memory|file` runs one of them (for profiling).
import { LanguageModel } from "@dsh/llm"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { SubagentTool } from "@dsh/tool-subagent"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { loadavg } from "node:os"
import { median, percentile, setup, workspace } from "./lib/harness.ts"

const RUNS = Number(process.env.BENCH_RUNS ?? 1000)
let firstRequestAt = 0
const scripted = ScriptedModel.make({ rules: [], fallback: { text: "done" } })
// Records when the child's model is first asked; the rest is the scripted model.
const childModel = LanguageModel.make({
  provider: "scripted",
  model: "bench",
  stream: (request) => {
    if (firstRequestAt === 0) firstRequestAt = performance.now()
    return scripted.stream(request)
  }
})

const measure = (store: "memory" | "file") => Effect.gen(function*() {
  const { cwd, home } = workspace()
  const { subagents } = yield* setup({ home, cwd, childModel, store, limits: { maxChildren: RUNS + 10 } })
  const tool = yield* SubagentTool.make(Fixtures.testParent(childModel, { cwd })).pipe(Effect.provideService(Subagents.Subagents, subagents))
  const toolbox = Toolbox.make({ tools: [tool] })
  const samples: Array<number> = []
  // Process CPU time (user + system) across all runs: on a loaded machine the wall-clock figures
  // swing with the scheduler and the shared disk, the CPU a delegation costs much less.
  const cpuStart = process.cpuUsage()
  for (let i = 0; i < RUNS; i++) {
    firstRequestAt = 0
    const call = { id: `c${i}`, name: "subagent", arguments: JSON.stringify({ description: "bench", prompt: `task ${i}`, agent: "coder" }) }
    const start = performance.now()
    yield* toolbox.execute(call, { cwd, agent: "main" })
    samples.push(firstRequestAt - start)
  }
  const cpu = process.cpuUsage(cpuStart)
  const cpuPerRun = (cpu.user + cpu.system) / 1000 / RUNS
  // All runs share one session, so the k-th delegation finds k children there: by block of 100.
  const blocks = Array.from({ length: RUNS / 100 }, (_, k) => median(samples.slice(k * 100, k * 100 + 100)).toFixed(2))
  console.log(`  ${store} store, median by block of 100 delegations (children already in the session: 0, 100, ...): ${blocks.join(" ")} ms`)
  const warm = samples.slice(50)
  const med = median(warm)
  const p99 = percentile(warm, 0.99)
  // Targets: memory median < 1 ms, p99 < 5 ms; file median < 3 ms.
  const target = store === "memory" ? { median: 1, p99: 5 } : { median: 3, p99: undefined }
  const p99Budget = target.p99 === undefined ? "" : `, target p99 < ${target.p99} ms: ${(p99 / target.p99).toFixed(2)}x of budget`
  console.log(`delegation overhead, ${store} store (tool call -> child's first model request): median ${med.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms over ${warm.length} runs, process CPU ${cpuPerRun.toFixed(3)} ms per delegation (target median < ${target.median} ms: ${(med / target.median).toFixed(2)}x of budget${p99Budget}; load average ${loadavg()[0]?.toFixed(2)})`)
  console.log(JSON.stringify({ bench: `delegation-overhead-${store}`, runs: warm.length, medianMs: Number(med.toFixed(3)), p99Ms: Number(p99.toFixed(3)), cpuMsPerDelegation: Number(cpuPerRun.toFixed(3)), targetMedianMs: target.median, ...(target.p99 === undefined ? {} : { targetP99Ms: target.p99 }) }))
}).pipe(Effect.scoped)

const only = process.argv.indexOf("--store")
const stores = only === -1 ? (["memory", "file"] as const) : [process.argv[only + 1] === "memory" ? "memory" as const : "file" as const]
for (const store of stores) await Effect.runPromise(measure(store))
