// One delegation through dsh (Harness + spawn backend, new session, lead -> child -> lead) against
// the AI SDK's subagent pattern (a `tool()` whose `execute` runs another `streamText`; the fake
// server streams, as dsh's adapters always do), on the
// SAME local fake OpenAI server: the AI SDK through `@ai-sdk/openai-compatible`, dsh through its
// own `openai:` adapter. Both sides pay the same HTTP + SSE per model request (3 per delegation),
// so the ratio shows what dsh adds: sessions, transcripts, descriptors, the lane, durability.
// Also: 100 parallel children in one lead turn, and the fsyncs and files one delegation costs
// (counted with strace when it is installed).
//   node --conditions=@dsh/source packages/subagent-inprocess/bench/delegation-vs-ai-sdk.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { FileSessionStore, MemorySessionStore } from "@dsh/session"
import { Limits } from "@dsh/subagent"
import { stepCountIs, streamText, tool } from "ai"
import { Effect, Layer, ManagedRuntime } from "effect"
import { spawnSync } from "node:child_process"
import { accessSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { z } from "zod"
import { SpawnProvider } from "../src/index.ts"

const ROUNDS = 5
const PER_ROUND = 10
const FAN = 100
const FAN_ROUNDS = 9
const LEAD = "You lead."
const RESEARCHER = "You research one question."

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

// The model: the researcher answers; the lead delegates (N calls when the prompt says "fan N"), then sums up.
type Msg = { role: string; content?: unknown }
const text = (m: Msg | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""))
const respond = (request: FakeOpenAIServer.FakeRequest) => {
  const messages = ((request.body as { messages?: ReadonlyArray<Msg> }).messages ?? [])
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
// The fake server keeps every request it saw; a fresh one per section keeps that small.
const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })

// --- AI SDK side -----------------------------------------------------------------------------
const aiModel = createOpenAICompatible({ name: "bench", baseURL: server.url, apiKey: "sk" }).languageModel("m")
const researcher = tool({
  description: "Delegate a question to a researcher",
  inputSchema: z.object({ description: z.string(), prompt: z.string(), agent: z.string() }),
  execute: ({ prompt }) => streamText({ model: aiModel, system: RESEARCHER, prompt, maxRetries: 0 }).text
})
const viaAiSdk = (prompt: string) => () =>
  streamText({ model: aiModel, system: LEAD, prompt, tools: { subagent: researcher }, stopWhen: stepCountIs(4), maxRetries: 0 }).text

// --- dsh side --------------------------------------------------------------------------------
const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "bench" })
// "strict" is the file store with every metadata write fsynced on its own (as before group commit).
const dshRuntime = (store: "file" | "strict" | "memory") => {
  const home = mkdtempSync(join(tmpdir(), "dsh-bench-vs-"))
  const storeLayer = store === "memory" ? MemorySessionStore.layer : FileSessionStore.layer({ home, sync: store === "strict" ? "strict" : "group" })
  const host = Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", LEAD), delegates: [agent("researcher", RESEARCHER)] })),
    backends: [SpawnProvider.SpawnProvider],
    tools: [],
    model: "openai:m",
    modelConfig: { baseUrl: server.url, apiKey: "sk" }
  }).pipe(Layer.provide(Layer.mergeAll(
    storeLayer,
    ModelRegistry.layerWith([OpenAIAdapter.OpenAIAdapter]),
    Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxConcurrent: FAN, maxChildren: FAN + 10 })
  )))
  return { runtime: ManagedRuntime.make(host), home }
}
const viaDsh = (runtime: ReturnType<typeof dshRuntime>["runtime"], prompt: string) => () =>
  runtime.runPromise(Effect.gen(function*() {
    const dsh = yield* AgentHost.AgentHost
    const session = yield* dsh.createSession({ cwd: tmpdir() })
    const result = yield* dsh.prompt({ sessionId: session.id, prompt })
    if (result.subagents.some((c) => c.status !== "completed")) throw new Error("a child did not complete")
    return result.result
  }))

const time = async (f: () => PromiseLike<unknown>) => {
  const start = performance.now()
  await f()
  return performance.now() - start
}


if (process.env.ONLY) {
  const r = dshRuntime(process.env.ONLY as "file")
  const g = viaDsh(r.runtime, "fan 100")
  await g()
  const { accessSync } = await import("node:fs")
  try { accessSync("/dsh-mark-start") } catch {}
  for (let i = 0; i < 5; i++) await g()
  try { accessSync("/dsh-mark-end") } catch {}
  await r.runtime.dispose(); await server.close(); process.exit(0)
}
const file = dshRuntime("file"), mem = dshRuntime("memory")
const f = viaDsh(file.runtime, "fan 100"), m = viaDsh(mem.runtime, "fan 100")
await f(); await m(); await f(); await m()
const tf: number[] = [], tm: number[] = []
for (let i = 0; i < Number(process.env.PASSES ?? 15); i++) { tf.push(await time(f)); tm.push(await time(m)) }
console.log(`fan file ${median(tf).toFixed(1)} mem ${median(tm).toFixed(1)} extra/child ${((median(tf)-median(tm))/100).toFixed(2)} ms`)
await file.runtime.dispose(); await mem.runtime.dispose(); await server.close(); process.exit(0)
