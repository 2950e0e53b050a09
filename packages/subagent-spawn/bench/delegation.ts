// Delegation overhead: from the parent's `subagent` tool call to the child's first model
// request, on the scripted model, with real persistence. Median and p99 over many runs.
import { makeLanguageModel } from "@dsh/llm"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { Subagents } from "@dsh/subagent"
import { testParent } from "@dsh/subagent/testing"
import { makeSubagentTool } from "@dsh/tool-subagent"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import { median, percentile, setup, workspace } from "./lib/harness.ts"

const RUNS = 1000
let firstRequestAt = 0
const scripted = makeScriptedModel({ rules: [], fallback: { text: "done" } })
// Records when the child's model is first asked; the rest is the scripted model.
const childModel = makeLanguageModel({
  provider: "scripted",
  model: "bench",
  stream: (request) => {
    if (firstRequestAt === 0) firstRequestAt = performance.now()
    return scripted.stream(request)
  }
})

const program = Effect.gen(function*() {
  const { cwd, home } = workspace()
  const { subagents } = yield* setup({ home, cwd, childModel, limits: { maxChildren: RUNS + 10 } })
  const tool = yield* makeSubagentTool(testParent(childModel, { cwd })).pipe(Effect.provideService(Subagents, subagents))
  const toolbox = makeToolbox({ tools: [tool] })
  const samples: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    firstRequestAt = 0
    const call = { id: `c${i}`, name: "subagent", arguments: JSON.stringify({ description: "bench", prompt: `task ${i}`, agent: "coder" }) }
    const start = performance.now()
    yield* toolbox.execute(call, { cwd, agent: "main" })
    samples.push(firstRequestAt - start)
  }
  const warm = samples.slice(50)
  const med = median(warm)
  const p99 = percentile(warm, 0.99)
  console.log(`delegation overhead (tool call -> child's first model request): median ${med.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms over ${warm.length} runs (target median < 2 ms: ${(med / 2).toFixed(2)}x of budget)`)
  console.log(JSON.stringify({ bench: "delegation-overhead", runs: warm.length, medianMs: Number(med.toFixed(3)), p99Ms: Number(p99.toFixed(3)), targetMedianMs: 2 }))
}).pipe(Effect.scoped)

await Effect.runPromise(program)
