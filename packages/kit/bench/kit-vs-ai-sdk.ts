// `kit.tools.aiSdk()` in an AI SDK loop against the AI SDK's own subagent pattern (a `tool()` whose
// `execute` runs another `ToolLoopAgent`), on the SAME local fake OpenAI server, the SAME AI SDK
// model object and the SAME lead loop (a `ToolLoopAgent` with a step limit), in one run: only the
// `subagent` tool differs. dsh's side uses `store: "memory"` (the kit's default). Measured: one
// delegation (lead -> child -> lead) and 100 parallel children in one lead step; then the cold
// start of a fresh `node` process doing `createSubagents` + its first delegation, against `node -e 0`.
// Target: <= 1.5x the AI SDK on both warm figures.
//   pnpm run build && node --conditions=@dsh/source packages/kit/bench/kit-vs-ai-sdk.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { createSubagents, type Subagents } from "@dsh/kit"
import { type FakeRequest, startFakeOpenAIServer } from "@dsh/llm-openai/testing"
import { stepCountIs, tool, ToolLoopAgent, type ToolSet } from "ai"
import { loadavg } from "node:os"
import { z } from "zod"
import { appWith, median, timeCold } from "./lib/cold.ts"

const ROUNDS = 5
const PER_ROUND = 10
const FAN = 100
const FAN_ROUNDS = 3
const COLD_ROUNDS = 10
const LEAD = "You lead."
const RESEARCHER = "You research one question."

// The model: the researcher answers; the lead delegates (N calls when the prompt says "fan N"), then sums up.
type Msg = { role: string; content?: unknown }
const text = (m: Msg | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""))
const respond = (request: FakeRequest) => {
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
const server = await startFakeOpenAIServer({ respond })
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
const viaKit = async (kit: Subagents) => lead(await kit.tools.aiSdk<ToolSet>())

const time = async (f: () => Promise<unknown>) => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

// --- one delegation -------------------------------------------------------------------------------
const one = "What is the answer?"
const kit = await makeKit()
const dsh = await viaKit(kit)
const cases = { aiSdk: () => aiSdk(one), kit: () => dsh(one) }
for (const f of Object.values(cases)) for (let i = 0; i < 5; i++) await f() // warm-up
const rounds = { aiSdk: [] as Array<number>, kit: [] as Array<number> }
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, f] of Object.entries(cases) as Array<[keyof typeof cases, () => Promise<unknown>]>) {
    const xs: Array<number> = []
    for (let i = 0; i < PER_ROUND; i++) xs.push(await time(f))
    rounds[name].push(median(xs))
  }
}
const oneMs = { aiSdk: median(rounds.aiSdk), kit: median(rounds.kit) }
await kit.close()

// --- 100 parallel children in one lead step (a fresh kit each round, so no round sees the last one's children) ---
const fan = `fan ${FAN}: ask ${FAN} researchers`
const fanRounds = { aiSdk: [] as Array<number>, kit: [] as Array<number> }
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
const fanMs = { aiSdk: median(fanRounds.aiSdk), kit: median(fanRounds.kit) }
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
const cold = timeCold({
  kit: { code: coldCode, cwd: app.dir },
  importOnly: { code: `import "@dsh/kit"\nimport "@dsh/llm-scripted"`, cwd: app.dir },
  node: { code: "0", cwd: app.dir }
}, COLD_ROUNDS)
app.dispose()

const ratio = (a: number, b: number) => Number((a / b).toFixed(2))
const load = loadavg().map((x) => x.toFixed(2)).join(" ")
console.log(`one delegation through kit.tools.aiSdk() in a ToolLoopAgent (lead -> child -> lead), median of ${ROUNDS} rounds x ${PER_ROUND}: AI SDK subagent pattern ${oneMs.aiSdk.toFixed(2)} ms; dsh kit (store "memory") ${oneMs.kit.toFixed(2)} ms (${ratio(oneMs.kit, oneMs.aiSdk)}x, target <= 1.5x)`)
console.log(`${FAN} parallel children in one lead step, median of ${FAN_ROUNDS}: AI SDK ${fanMs.aiSdk.toFixed(1)} ms; dsh kit ${fanMs.kit.toFixed(1)} ms (${ratio(fanMs.kit, fanMs.aiSdk)}x, target <= 1.5x)`)
console.log(`cold start (fresh node: createSubagents + first delegation, built dist), median of ${COLD_ROUNDS}: ${cold.kit.toFixed(1)} ms; of which the import ${cold.importOnly.toFixed(1)} ms; node -e 0 ${cold.node.toFixed(1)} ms (${ratio(cold.kit, cold.node)}x; load average ${load})`)
console.log(JSON.stringify({
  bench: "kit-vs-ai-sdk",
  oneDelegationMs: { aiSdk: Number(oneMs.aiSdk.toFixed(2)), kit: Number(oneMs.kit.toFixed(2)) },
  kitVsAiSdk: ratio(oneMs.kit, oneMs.aiSdk),
  fanOut: FAN,
  fanOutMs: { aiSdk: Number(fanMs.aiSdk.toFixed(1)), kit: Number(fanMs.kit.toFixed(1)) },
  fanOutKitVsAiSdk: ratio(fanMs.kit, fanMs.aiSdk),
  coldStartMs: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, Number(v.toFixed(1))])),
  coldStartVsNode: ratio(cold.kit, cold.node),
  loadAverage: load
}))
