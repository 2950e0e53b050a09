// Retained memory of a long-lived host: 1,000 finished sessions with one child each (lead ->
// child -> lead, scripted instant models) through one Harness/AgentHost, then a full GC. The
// baseline is the same host after its warm-up sessions (0 sessions measured); the figure is the
// heap growth per session. With the memory store, "released" means only the store keeps them:
// the store's data is then dropped and the heap measured again, and what is left is the host's.
// The AI SDK's subagent pattern holds nothing once a call returns: 0 KB is the peers' floor.
// A figure below 0 is a heap that ended below the baseline (V8 drops the warm-up's bytecode and
// feedback of functions no longer run): nothing per session is retained, within that noise.
//   node --conditions=@dsh/source packages/subagent-inprocess/bench/memory.ts [--sessions N] [--store file|memory] [--snapshot]
import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, MemorySessionStore } from "@dsh/session"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { getHeapSpaceStatistics, setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
import { SpawnProvider } from "../src/index.ts"

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const SESSIONS = Number(arg("--sessions") ?? 1000)
const WARM = 100
const TARGET_KB = 5

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as (options?: { type: "major"; execution: "sync" }) => void
/** Heap in use after full GCs, without compiled code (JIT output grows with warm-up, not with sessions). */
const settledHeap = async () => {
  let used = Number.POSITIVE_INFINITY
  // Finalizers and timers of the last session run between collections: until the heap stops shrinking.
  for (let i = 0; i < 20; i++) {
    gc({ type: "major", execution: "sync" })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const now = getHeapSpaceStatistics().filter((s) => !s.space_name.startsWith("code")).reduce((n, s) => n + s.space_used_size, 0)
    if (now >= used - 1024 && i >= 3) return Math.min(now, used)
    used = Math.min(used, now)
  }
  return used
}

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "bench" })
// The lead delegates once, then answers; the researcher answers at once.
const adapter = ScriptedAdapter.make({
  scripts: {
    bench: {
      rules: [
        { when: { system: "You research" }, reply: { text: "The answer is 42." } },
        { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "question", prompt: "What is the answer?", agent: "researcher" } }] } }
      ],
      fallback: { text: "My researcher says 42." }
    }
  }
})

const measure = async (store: "file" | "memory") => {
  const home = mkdtempSync(join(tmpdir(), "dsh-bench-mem-"))
  const data = MemorySessionStore.makeData()
  const storeLayer = store === "memory" ? MemorySessionStore.layerWith({ data }) : FileSessionStore.layer({ home })
  const runtime = ManagedRuntime.make(Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
    backends: [SpawnProvider.SpawnProvider],
    tools: [],
    model: "scripted:bench"
  }).pipe(Layer.provide(Layer.mergeAll(storeLayer, ModelRegistry.layerWith([adapter])))))
  const one = () =>
    runtime.runPromise(Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const session = yield* host.createSession({ cwd: home })
      const result = yield* host.prompt({ sessionId: session.id, prompt: "What is the answer?" })
      if (result.subagents.length !== 1 || result.subagents.some((c) => c.status !== "completed")) throw new Error("the child did not complete")
      return session.id
    }))
  // Warm-up: modules, JIT, the host's lazily built parts. The baseline is taken after it.
  const warm: Array<string> = []
  for (let i = 0; i < WARM; i++) warm.push(await one())
  const base = await settledHeap()
  // For finding what retains sessions: compare the two snapshots (Chrome DevTools' comparison view).
  if (process.argv.includes("--snapshot")) console.log(`  heap snapshot (baseline): ${writeHeapSnapshot()}`)
  const start = performance.now()
  const ids: Array<string> = []
  for (let i = 0; i < SESSIONS; i++) ids.push(await one())
  const wall = performance.now() - start
  const after = await settledHeap()
  if (process.argv.includes("--snapshot")) console.log(`  heap snapshot (after): ${writeHeapSnapshot()}`)
  // The memory store's data is what "only the store keeps": without the measured sessions' data,
  // what is left of the growth is the host's.
  const storeKb = store === "memory" ? (after - (ids.forEach((id) => data.sessions.delete(id)), await settledHeap())) / 1024 / SESSIONS : 0
  const hostKb = (after - base) / 1024 / SESSIONS - storeKb
  // A released session is still there: continuing the first one reads it back from the store.
  await runtime.runPromise(Effect.gen(function*() {
    const host = yield* AgentHost.AgentHost
    if (store === "file") yield* host.prompt({ sessionId: ids[0]!, prompt: "And again?" })
    else yield* host.prompt({ sessionId: warm[0]!, prompt: "And again?" })
  }))
  await runtime.dispose()
  rmSync(home, { recursive: true, force: true })
  const storeNote = store === "memory" ? `; the store's own data ${storeKb.toFixed(1)} KB per session` : ""
  console.log(`retained heap, ${store} store: ${hostKb.toFixed(2)} KB per finished session (1 child each) over ${SESSIONS} sessions after GC (baseline: the same host after ${WARM} warm-up sessions)${storeNote}; target <= ${TARGET_KB} KB: ${(hostKb / TARGET_KB).toFixed(2)}x of budget; AI SDK floor 0 KB; ${(wall / SESSIONS).toFixed(1)} ms per session; load average ${loadavg()[0]?.toFixed(2)}`)
  console.log(JSON.stringify({ bench: `memory-retained-${store}`, sessions: SESSIONS, kbPerSession: Number(hostKb.toFixed(2)), targetKb: TARGET_KB, ...(store === "memory" ? { storeKbPerSession: Number(storeKb.toFixed(2)) } : {}) }))
}

const only = arg("--store")
for (const store of only === undefined ? (["file", "memory"] as const) : [only === "memory" ? "memory" as const : "file" as const]) await measure(store)
