// `kit.tools.aiSdk()` in an AI SDK loop against the AI SDK's own subagent pattern (a `tool()` whose
// `execute` runs another `ToolLoopAgent`), on the SAME local fake OpenAI server, the SAME AI SDK
// model object and the SAME lead loop (a `ToolLoopAgent` with a step limit), in one run: only the
// `subagent` tool differs. dsh's side uses `store: "memory"` (the kit's default). Measured: one
// delegation (lead -> child -> lead) and 100 parallel children in one lead step; then the cold
// start of a fresh `node` process doing `createSubagents` + its first delegation, against `node -e 0`.
// Target: <= 1.5x the AI SDK on both warm figures.
//   pnpm run build && node --conditions=@dsh/source packages/kit/bench/kit-vs-ai-sdk.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { type Subagents, createSubagents } from "@dsh/kit"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { stepCountIs, tool, ToolLoopAgent, type ToolSet } from "ai"
import { loadavg } from "node:os"
import { z } from "zod"
import { appWith, median, timeCold } from "./lib/cold.ts"

const ROUNDS = 5
const PER_ROUND = 10
const FAN = 100
const FAN_ROUNDS = 5
const COLD_ROUNDS = 10
const LEAD = "You lead."
const RESEARCHER = "You research one question."

// The model: the researcher answers; the lead delegates (N calls when the prompt says "fan N"), then sums up.
type Msg = { role: string; content?: unknown }
const text = (m: Msg | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""))
const respond = (request: FakeOpenAIServer.FakeRequest) => {
  const messages = (request.body as { messages?: ReadonlyArray<Msg> }).messages ?? []
  if (text(messages.find((m) => m.role === "system")).includes("You research")) return { text: "The answer is 42." }
  if (messages.at(-1)?.role === "tool") return { text: "My researcher says: the answer is 42." }
  const fan = Number(/fan (\d+)/.exec(text(messages.findLast((m) => m.role === "user")))?.[1] ?? 1)
  return {
    toolCalls: Array.from({ length: fan }, (_, i) => ({
      id: `call_${i}`,
      name: "subagent",
      arguments: { description: `question ${i}`, prompt: "What is the answer?", agent: "researcher" }
    }))
  }
}
const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
const model = createOpenAICompatible({ name: "bench", baseURL: server.url, apiKey: "sk" }).languageModel("m")

// The lead: the same loop for both sides. The fake server streams, so every model call streams.
const lead = (tools: ToolSet) => async (prompt: string) => {
  const agent = new ToolLoopAgent({ model, instructions: LEAD, tools, stopWhen: stepCountIs(4), maxRetries: 0 })
  const out = await (await agent.stream({ prompt })).text
  if (!out.includes("42")) throw new Error(`the lead did not answer: ${out}`)
  return out
}

// --- the AI SDK's subagent pattern -------------------------------------------------------------
const researcher = new ToolLoopAgent({ model, instructions: RESEARCHER, maxRetries: 0 })
const aiSdk = lead({
  subagent: tool({
    description: "Delegate a question to a researcher",
    inputSchema: z.object({ description: z.string(), prompt: z.string(), agent: z.string() }),
    execute: async ({ prompt }, { abortSignal }) => (await researcher.stream({ prompt, ...(abortSignal === undefined ? {} : { abortSignal }) })).text
  })
})

// --- dsh: the kit's tools in the same loop ------------------------------------------------------
const makeKit = async () => {
  const kit = await createSubagents({
    model,
    agents: { researcher: { description: "answers one question", instructions: RESEARCHER } },
    store: "memory",
    limits: { maxConcurrent: FAN, maxChildren: 100_000 }
  })
  await kit.children() // opens the kit's session outside the timed calls
  return kit
}
const viaKit = async (kit: Subagents.Subagents) => lead(await kit.tools.aiSdk<ToolSet>())

// Wall time, and the CPU time of this process (both sides pay the fake server's share alike):
// with other work on the machine the second swings less.
type Sample = { readonly wall: number; readonly cpu: number }
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const time = async (f: () => Promise<unknown>): Promise<Sample> => {
  const start = performance.now()
  const cpu = cpuMs()
  await f()
  return { wall: performance.now() - start, cpu: cpuMs() - cpu }
}
const medians = (xs: ReadonlyArray<Sample>): Sample => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) })

// --- one delegation -------------------------------------------------------------------------------
const one = "What is the answer?"
const kit = await makeKit()
const dsh = await viaKit(kit)
const cases = { aiSdk: () => aiSdk(one), kit: () => dsh(one) }
for (const f of Object.values(cases)) for (let i = 0; i < 5; i++) await f() // warm-up
const rounds = { aiSdk: [] as Array<Sample>, kit: [] as Array<Sample> }
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, f] of Object.entries(cases) as Array<[keyof typeof cases, () => Promise<unknown>]>) {
    const xs: Array<Sample> = []
    for (let i = 0; i < PER_ROUND; i++) xs.push(await time(f))
    rounds[name].push(medians(xs))
  }
}
const oneMs = { aiSdk: medians(rounds.aiSdk), kit: medians(rounds.kit) }
await kit.close()

// --- 100 parallel children in one lead step (a fresh kit each round, so no round sees the last one's children) ---
const fan = `fan ${FAN}: ask ${FAN} researchers`
const fanRounds = { aiSdk: [] as Array<Sample>, kit: [] as Array<Sample> }
for (let r = 0; r <= FAN_ROUNDS; r++) {
  const fresh = await makeKit()
  const run = await viaKit(fresh)
  const a = await time(() => aiSdk(fan))
  const k = await time(() => run(fan))
  const kids = await fresh.children()
  if (kids.length !== FAN || kids.some((c) => c.status !== "completed")) throw new Error(`the kit ran ${kids.length} children, not ${FAN} completed ones`)
  await fresh.close()
  if (r === 0) continue // warm-up
  fanRounds.aiSdk.push(a)
  fanRounds.kit.push(k)
}
const fanMs = { aiSdk: medians(fanRounds.aiSdk), kit: medians(fanRounds.kit) }
await server.close()

// --- cold start: a fresh process, createSubagents + the first delegation (built dist, scripted model) ---
const app = appWith(["kit", "llm-scripted"])
const coldCode = `
import { createSubagents } from "@dsh/kit"
import { makeScriptedModel } from "@dsh/llm-scripted"
const kit = await createSubagents({
  model: makeScriptedModel({ rules: [{ reply: { text: "The answer is 42." } }] }),
  agents: { researcher: { description: "answers one question", instructions: "${RESEARCHER}" } }
})
const result = await kit.delegate({ agent: "researcher", prompt: "What is the answer?" })
if (result.text !== "The answer is 42.") process.exit(3)
await kit.close()
`
const { wall: cold, cpu: coldCpu } = timeCold({
  kit: { code: coldCode, cwd: app.dir },
  importOnly: { code: `import "@dsh/kit"\nimport "@dsh/llm-scripted"`, cwd: app.dir },
  node: { code: "0", cwd: app.dir }
}, COLD_ROUNDS)
app.dispose()

const ratio = (a: number, b: number) => Number((a / b).toFixed(2))
const load = loadavg().map((x) => x.toFixed(2)).join(" ")
const pair = (x: { readonly aiSdk: Sample; readonly kit: Sample }, digits: number) =>
  `AI SDK subagent pattern ${x.aiSdk.wall.toFixed(digits)} ms (CPU ${x.aiSdk.cpu.toFixed(digits)} ms); dsh kit ${x.kit.wall.toFixed(digits)} ms (CPU ${x.kit.cpu.toFixed(digits)} ms): ` +
  `${ratio(x.kit.wall, x.aiSdk.wall)}x wall, ${ratio(x.kit.cpu, x.aiSdk.cpu)}x CPU (target <= 1.5x)`
console.log(`one delegation through kit.tools.aiSdk() in a ToolLoopAgent (lead -> child -> lead, store "memory"), median of ${ROUNDS} rounds x ${PER_ROUND}: ${pair(oneMs, 2)}`)
console.log(`${FAN} parallel children in one lead step, median of ${FAN_ROUNDS}: ${pair(fanMs, 1)}`)
console.log(`cold start (fresh node: createSubagents + first delegation, built dist, scripted model), median of ${COLD_ROUNDS}: ${cold.kit.toFixed(1)} ms; the import alone ${cold.importOnly.toFixed(1)} ms; node -e 0 ${cold.node.toFixed(1)} ms (${ratio(cold.kit, cold.node)}x)`)
console.log(`cold start, CPU time (user + system, all threads) of the same processes: ${coldCpu.kit.toFixed(1)} ms; the import alone ${coldCpu.importOnly.toFixed(1)} ms; node -e 0 ${coldCpu.node.toFixed(1)} ms (${ratio(coldCpu.kit, coldCpu.node)}x); load average ${load}`)
const round = (x: Sample, digits: number) => ({ wall: Number(x.wall.toFixed(digits)), cpu: Number(x.cpu.toFixed(digits)) })
console.log(JSON.stringify({
  bench: "kit-vs-ai-sdk",
  oneDelegationMs: { aiSdk: round(oneMs.aiSdk, 2), kit: round(oneMs.kit, 2) },
  kitVsAiSdk: ratio(oneMs.kit.wall, oneMs.aiSdk.wall),
  kitVsAiSdkCpu: ratio(oneMs.kit.cpu, oneMs.aiSdk.cpu),
  fanOut: FAN,
  fanOutMs: { aiSdk: round(fanMs.aiSdk, 1), kit: round(fanMs.kit, 1) },
  fanOutKitVsAiSdk: ratio(fanMs.kit.wall, fanMs.aiSdk.wall),
  fanOutKitVsAiSdkCpu: ratio(fanMs.kit.cpu, fanMs.aiSdk.cpu),
  coldStartMs: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, Number(v.toFixed(1))])),
  coldStartVsNode: ratio(cold.kit, cold.node),
  coldStartCpuMs: Object.fromEntries(Object.entries(coldCpu).map(([k, v]) => [k, Number(v.toFixed(1))])),
  coldStartCpuVsNode: ratio(coldCpu.kit, coldCpu.node),
  loadAverage: load
}))
