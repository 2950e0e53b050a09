// The cost of tracing one delegation: a lead agent delegates to an in-process researcher (scripted
// model, file session store), with DshTelemetry exporting to a local OTLP/HTTP receiver vs without
// it. Interleaved rounds so both sides see the same machine load; medians and their ratio.
import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { DshTelemetry } from "../src/index.ts"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)

let received = 0
const receiver = createServer((req, res) => {
  req.on("data", () => {})
  req.on("end", () => {
    received++
    res.end("{}")
  })
})
await new Promise<void>((ready) => receiver.listen(0, "127.0.0.1", ready))
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "bench" })
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find it", prompt: "What is the answer?", agent: "researcher" } }] } },
    { reply: { text: "{{lastTool|firstLine}}" } }
  ]
}
const host = () =>
  Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
    backends: [SpawnProvider.SpawnProvider],
    tools: [],
    model: "scripted:bench"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-bench-otel-")) }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { bench: script } })])
  )))

const off = ManagedRuntime.make(host())
const on = ManagedRuntime.make(Layer.merge(host(), DshTelemetry.layer({ endpoint, protocol: "http/protobuf", exportInterval: "200 millis" })))

const delegation = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const r = yield* dsh.prompt({ sessionId: session.id, prompt: "What is the answer?" })
  if (r.result !== "The answer is 42.") return yield* Effect.die(`unexpected result: ${r.result}`)
})

const time = async (rt: typeof off | typeof on): Promise<number> => {
  const t = performance.now()
  await rt.runPromise(delegation)
  return performance.now() - t
}
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

// Warm both (module loading, JIT), then interleave.
for (let i = 0; i < 3; i++) {
  await time(off)
  await time(on)
}
const offMs: Array<number> = []
const onMs: Array<number> = []
for (let i = 0; i < ROUNDS; i++) {
  offMs.push(await time(off))
  onMs.push(await time(on))
}
await on.dispose()
await off.dispose()
receiver.close()

const a = median(offMs)
const b = median(onMs)
console.log(`one delegation (lead → in-process researcher, scripted model): tracing off median ${a.toFixed(2)} ms; on (OTLP/HTTP protobuf to 127.0.0.1) median ${b.toFixed(2)} ms; ratio ${(b / a).toFixed(2)}x, ${ROUNDS} rounds, ${received} export requests`)
console.log(JSON.stringify({ bench: "telemetry-tracing", offMedianMs: Number(a.toFixed(2)), onMedianMs: Number(b.toFixed(2)), ratio: Number((b / a).toFixed(2)), rounds: ROUNDS, exportRequests: received }))
