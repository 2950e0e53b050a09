// The bridge's cost over the AI SDK itself, same provider (`@ai-sdk/openai-compatible`), same
// local SSE server, same run: (1) per-request wall time of `fromAiSdk(model).generate` vs the
// AI SDK's own `streamText` (target ≤ 1.1×); (2) throughput of a 10,000-delta stream through the
// bridge vs the provider's `doStream` read directly (and `streamText`, for reference).
//   node --conditions=@dsh/source packages/llm-ai-sdk/bench/bridge.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Messages } from "@dsh/core"
import { streamText } from "ai"
import { Effect, Stream } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { FromAiSdk } from "../src/index.ts"

const REQUESTS = 300
const WARMUP = 30
const DELTAS = 10_000
const STREAM_RUNS = 7

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

/** One pre-rendered Chat Completions event stream of `deltas` one-token chunks, served to every request. */
const sseServer = async (deltas: number): Promise<{ url: string; server: Server }> => {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frame({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })
  const parts = [chunk({ role: "assistant", content: "" })]
  for (let i = 0; i < deltas; i++) parts.push(chunk({ content: "tok " }))
  parts.push(chunk({}, "stop"))
  parts.push(frame({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 5, completion_tokens: deltas, total_tokens: deltas + 5 } }))
  parts.push("data: [DONE]\n\n")
  const body = Buffer.from(parts.join(""))
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      res.end(body)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server }
}

const small = await sseServer(5)
const big = await sseServer(DELTAS)
const modelOn = (url: string) => createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk", includeUsage: true }).languageModel("m")

const request = { messages: [Messages.userMessage("hi")], tools: [] }
const viaBridge = (model: ReturnType<typeof modelOn>) => {
  const dsh = FromAiSdk.fromAiSdk(model)
  return () => Effect.runPromise(dsh.generate(request)).then((r) => r.message.content.length)
}
const viaStreamText = (model: ReturnType<typeof modelOn>) => async () => {
  const result = streamText({ model, prompt: "hi", maxRetries: 0 })
  let n = 0
  for await (const text of result.textStream) n += text.length
  return n
}
const viaDoStream = (model: ReturnType<typeof modelOn>) => async () => {
  const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })
  let n = 0
  for await (const part of stream as unknown as AsyncIterable<{ type: string; delta?: string }>) if (part.type === "text-delta") n += part.delta?.length ?? 0
  return n
}
const viaBridgeStream = (model: ReturnType<typeof modelOn>) => {
  const dsh = FromAiSdk.fromAiSdk(model)
  return () => Effect.runPromise(Stream.runFold(dsh.stream(request), () => 0, (n, p) => (p.type === "text-delta" ? n + p.text.length : n)))
}

const time = async (f: () => Promise<number>) => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

// (1) Per request, interleaved so both see the same machine state.
const smallModel = modelOn(small.url)
const bridge = viaBridge(smallModel)
const baseline = viaStreamText(smallModel)
const bridgeMs: Array<number> = []
const baselineMs: Array<number> = []
for (let i = 0; i < REQUESTS + WARMUP; i++) {
  // Alternate which goes first, so neither always runs on a warmer connection pool.
  let a: number
  let b: number
  if (i % 2 === 0) {
    a = await time(bridge)
    b = await time(baseline)
  } else {
    b = await time(baseline)
    a = await time(bridge)
  }
  if (i >= WARMUP) {
    bridgeMs.push(a)
    baselineMs.push(b)
  }
}
const perBridge = median(bridgeMs)
const perBase = median(baselineMs)
const ratio = perBridge / perBase
console.log(`per request (5 deltas, local SSE): fromAiSdk ${perBridge.toFixed(3)} ms, streamText ${perBase.toFixed(3)} ms: ${ratio.toFixed(2)}x (target <= 1.1x), medians of ${bridgeMs.length}`)

// (2) Throughput of one 10,000-delta stream.
const bigModel = modelOn(big.url)
const rate = async (f: () => Promise<number>) => {
  await f()
  const runs: Array<number> = []
  for (let i = 0; i < STREAM_RUNS; i++) runs.push(DELTAS / ((await time(f)) / 1000))
  return median(runs)
}
const bridgeRate = await rate(viaBridgeStream(bigModel))
const providerRate = await rate(viaDoStream(bigModel))
const streamTextRate = await rate(viaStreamText(bigModel))
console.log(`10,000-delta stream: bridge ${Math.round(bridgeRate)} deltas/s, provider doStream alone ${Math.round(providerRate)} deltas/s (${(bridgeRate / providerRate).toFixed(2)}x), streamText ${Math.round(streamTextRate)} deltas/s`)
console.log(JSON.stringify({
  bench: "ai-sdk-bridge",
  requests: bridgeMs.length,
  bridgeMedianMs: Number(perBridge.toFixed(3)),
  streamTextMedianMs: Number(perBase.toFixed(3)),
  overheadRatio: Number(ratio.toFixed(3)),
  targetRatio: 1.1,
  deltas: DELTAS,
  bridgeDeltasPerSecond: Math.round(bridgeRate),
  providerDeltasPerSecond: Math.round(providerRate),
  streamTextDeltasPerSecond: Math.round(streamTextRate)
}))
small.server.close()
big.server.close()
