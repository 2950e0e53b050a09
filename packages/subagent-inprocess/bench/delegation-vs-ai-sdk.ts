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

// --- the strace child: one file-store delegation between two markers ------------------------
if (process.argv[2] === "--traced") {
  const { runtime } = dshRuntime("file")
  const run = viaDsh(runtime, "What is the answer?")
  await run() // warm: modules, JIT, the adapter
  const mark = (name: string) => {
    try {
      accessSync(`/dsh-bench-mark-${name}`)
    } catch {
      // the marker is the failed access itself
    }
  }
  mark("start")
  await run()
  mark("end")
  await runtime.dispose()
  await server.close()
  process.exit(0)
}

/** fsyncs and files created by one delegation, from strace's log between the markers. */
const traceOne = (): string => {
  const probe = spawnSync("strace", ["-V"], { encoding: "utf8" })
  if (probe.error !== undefined || probe.status !== 0) return "strace missing"
  const log = join(mkdtempSync(join(tmpdir(), "dsh-bench-strace-")), "log")
  const r = spawnSync("strace", ["-f", "-qq", "-o", log, "-e", "trace=fsync,fdatasync,openat,access,faccessat,faccessat2,rename,link,linkat,unlink,mkdir,statx,newfstatat", process.execPath, "--conditions=@dsh/source", import.meta.filename, "--traced"], { encoding: "utf8" })
  if (r.status !== 0) return `strace failed (${r.status}): ${r.stderr.slice(-300)}`
  const lines = readFileSync(log, "utf8").split("\n")
  const from = lines.findIndex((l) => l.includes("dsh-bench-mark-start"))
  const to = lines.findIndex((l) => l.includes("dsh-bench-mark-end"))
  const span = lines.slice(from, to)
  const syncs = span.filter((l) => /\b(fsync|fdatasync)\(/.test(l) && !l.includes("<unfinished") || /<\.\.\. (fsync|fdatasync) resumed>/.test(l)).length
  const created = new Set(span.filter((l) => /openat\(.*O_CREAT/.test(l) && !/= -1/.test(l)).map((l) => /"([^"]+)"/.exec(l)?.[1] ?? ""))
  const renamed = span.filter((l) => /\b(rename|link|linkat)\(/.test(l) && !/= -1/.test(l)).length
  // File calls made on libuv's thread pool (any thread but the main one, whose pid starts the
  // log): each is a round trip through the event loop, what the file store's overhead was.
  const main = lines[0]?.split(" ")[0]
  const offLoop = span.filter((l) => !l.startsWith(`${main} `) && !l.includes("resumed>") && /^\d+ +[a-z]/.test(l)).length
  rmSync(log, { force: true })
  return JSON.stringify({ fsyncs: syncs, filesCreated: created.size, renamesOrLinks: renamed, threadPoolFileCalls: offLoop })
}

// --- measure ----------------------------------------------------------------------------------
const file = dshRuntime("file")
const strict = dshRuntime("strict")
const memory = dshRuntime("memory")
const one = "What is the answer?"
const fan = `fan ${FAN}: ask ${FAN} researchers`
const cases = {
  aiSdk: viaAiSdk(one),
  dshFile: viaDsh(file.runtime, one),
  dshFileStrict: viaDsh(strict.runtime, one),
  dshMemory: viaDsh(memory.runtime, one)
}
for (const f of Object.values(cases)) for (let i = 0; i < 5; i++) await f() // warm-up

/**
 * Every case once per pass, in a rotating order, so that the machine's load (shared, 2 cores)
 * falls on all of them alike; each case's figure is the median over the passes, and each ratio
 * also the median of the ratios within a pass (paired with the AI SDK run of the same pass).
 */
const interleaved = async <K extends string>(fs: Record<K, () => PromiseLike<unknown>>, passes: number) => {
  const names = Object.keys(fs) as Array<K>
  const times = Object.fromEntries(names.map((n) => [n, [] as Array<number>])) as Record<K, Array<number>>
  for (let pass = 0; pass < passes; pass++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(pass + i) % names.length]!
      times[name].push(await time(fs[name]))
    }
  }
  const medians = Object.fromEntries(names.map((n) => [n, median(times[n])])) as Record<K, number>
  const paired = (name: K, base: K) => median(times[name].map((t, i) => t / times[base][i]!))
  return { medians, paired }
}

const ones = await interleaved(cases, ROUNDS * PER_ROUND)
const oneMs = ones.medians

const fanCases = { aiSdk: viaAiSdk(fan), dshFile: viaDsh(file.runtime, fan), dshMemory: viaDsh(memory.runtime, fan) }
for (const f of Object.values(fanCases)) await f()
const fans = await interleaved(fanCases, FAN_ROUNDS)
const fanMs = fans.medians
await file.runtime.dispose()
await strict.runtime.dispose()
await memory.runtime.dispose()
rmSync(file.home, { recursive: true, force: true })
rmSync(strict.home, { recursive: true, force: true })
rmSync(memory.home, { recursive: true, force: true })
await server.close()

const traced = traceOne()
const ratio = (a: number, b: number) => (a / b).toFixed(2)
const load = loadavg().map((x) => x.toFixed(2)).join(" ")
console.log(`one delegation (lead -> child -> lead, new session), median of ${ROUNDS * PER_ROUND} interleaved passes: AI SDK ${oneMs.aiSdk.toFixed(2)} ms; dsh file store ${oneMs.dshFile.toFixed(2)} ms (${ratio(oneMs.dshFile, oneMs.aiSdk)}x, paired ${ones.paired("dshFile", "aiSdk").toFixed(2)}x, target <= 1.5x); dsh file store with sync: "strict" ${oneMs.dshFileStrict.toFixed(2)} ms (${ratio(oneMs.dshFileStrict, oneMs.aiSdk)}x); dsh memory store ${oneMs.dshMemory.toFixed(2)} ms (${ratio(oneMs.dshMemory, oneMs.aiSdk)}x, paired ${ones.paired("dshMemory", "aiSdk").toFixed(2)}x, target <= 1.0x)`)
console.log(`${FAN} parallel children in one turn, median of ${FAN_ROUNDS} interleaved passes: AI SDK ${fanMs.aiSdk.toFixed(1)} ms; dsh file store ${fanMs.dshFile.toFixed(1)} ms (${ratio(fanMs.dshFile, fanMs.aiSdk)}x, paired ${fans.paired("dshFile", "aiSdk").toFixed(2)}x, target <= 1.0x); dsh memory store ${fanMs.dshMemory.toFixed(1)} ms (${ratio(fanMs.dshMemory, fanMs.aiSdk)}x)`)
console.log(`one file-store delegation under strace: ${traced} (target fsyncs <= 2); load average ${load}`)
console.log(JSON.stringify({
  bench: "delegation-vs-ai-sdk",
  oneDelegationMs: Object.fromEntries(Object.entries(oneMs).map(([k, v]) => [k, Number(v.toFixed(2))])),
  fileVsAiSdk: Number(ratio(oneMs.dshFile, oneMs.aiSdk)),
  fileVsAiSdkPaired: Number(ones.paired("dshFile", "aiSdk").toFixed(2)),
  memoryVsAiSdkPaired: Number(ones.paired("dshMemory", "aiSdk").toFixed(2)),
  strictFileVsAiSdk: Number(ratio(oneMs.dshFileStrict, oneMs.aiSdk)),
  memoryVsAiSdk: Number(ratio(oneMs.dshMemory, oneMs.aiSdk)),
  fanOut: FAN,
  fanOutMs: Object.fromEntries(Object.entries(fanMs).map(([k, v]) => [k, Number(v.toFixed(1))])),
  fanOutFileVsAiSdk: Number(ratio(fanMs.dshFile, fanMs.aiSdk)),
  fanOutFileVsAiSdkPaired: Number(fans.paired("dshFile", "aiSdk").toFixed(2)),
  fanOutMemoryVsAiSdk: Number(ratio(fanMs.dshMemory, fanMs.aiSdk)),
  strace: traced.startsWith("{") ? JSON.parse(traced) : traced,
  loadAverage: load
}))
