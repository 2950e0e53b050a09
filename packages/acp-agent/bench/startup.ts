/**
 * Start-up of the protocol servers and of `dsh run`, each against a baseline measured in the
 * same run, samples interleaved (a shuffled order in every round, so load from other processes
 * falls on all of them alike):
 *
 * - `dsh acp` spawn → first `agent_message_chunk` text (initialize, session/new, session/prompt on
 *   the scripted model) vs a bare `@agentclientprotocol/sdk` echo agent (fixtures/echo-agent.mjs)
 *   driven by the same client. Goal: ≤ 1.0×.
 * - `dsh sdk` spawn → first `text-delta` event vs the smallest server of the same protocol
 *   (fixtures/sdk-echo.mjs, Node built-ins only).
 * - `dsh run` spawn → first HTTP request at a fake OpenAI server on 127.0.0.1 vs `node -e 0`.
 *   Goal: ≤ 3×.
 *
 * `dsh …` is the default: dsh runs in the process spawned, with the CLI's compile cache warm.
 * `(resident)` = DSH_RESIDENT=1, the opt-in resident dsh (a warm spare process takes each start;
 * before every sample the bench waits until the resident has settled, so no spare loads beside
 * what is timed). `(cold)` = no resident and a fresh, empty compile cache for every sample (the
 * first start after a build or an upgrade). The resident the bench started is stopped at the end.
 *
 * `--against DIR` also runs another build of the CLI (a copy of `packages/cli/dist` made from an
 * earlier commit, kept beside it so its imports resolve) in the same rounds, and prints what a
 * change bought: on a shared machine that is steadier than comparing two runs.
 *
 *   node --conditions=@dsh/source packages/acp-agent/bench/startup.ts [runs] [--no-cold] [--against DIR]
 */
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Place, Status } from "@dsh/cli-resident"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ACP_TARGET = 1
const RUN_TARGET = 3
const args = process.argv.slice(2)
const RUNS = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--against") ?? 15)
const COLD = !args.includes("--no-cold")
const againstAt = args.indexOf("--against")
const AGAINST = againstAt >= 0 ? join(resolve(args[againstAt + 1] ?? ""), "main.js") : undefined
const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const ECHO_AGENT = join(import.meta.dirname, "fixtures/echo-agent.mjs")
const SDK_ECHO = join(import.meta.dirname, "fixtures/sdk-echo.mjs")
for (const main of [MAIN, ...(AGAINST === undefined ? [] : [AGAINST])]) {
  if (!existsSync(main)) {
    console.error(`build the CLI first: ${main} is missing`)
    process.exit(2)
  }
}

const dir = mkdtempSync(join(tmpdir(), "dsh-startup-bench-"))
const script = join(dir, "script.json")
writeFileSync(script, JSON.stringify({ name: "bench", rules: [{ reply: { text: "first text", usage: { input: 1, output: 1 } } }] }))
const home = join(dir, "home")
mkdirSync(home)
let coldCaches = 0
/** The children's environment: nothing of ours leaks in (no NODE_COMPILE_CACHE, no DSH_*). */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "", HOME: home, DSH_HOME: home, ...extra })
/** A fresh, empty compile cache directory: this start compiles everything from source. */
const cold = (): Record<string, string> => ({ NODE_COMPILE_CACHE: join(dir, `cold-cache-${coldCaches++}`), DSH_RESIDENT: "0" })
const RESIDENT = { DSH_RESIDENT: "1" }
/** The resident the `(resident)` samples use (the children's environment and flags; its name is ""). */
const place = Place.placeFor(MAIN, env(RESIDENT), "", [])
const resident = "problem" in place ? undefined : place

/** Newline-delimited JSON-RPC over a child's stdio: the same minimal client for every server. */
const rpc = (child: ChildProcess, onNotification: (method: string, params: any) => void) => {
  let buffered = ""
  let nextId = 1
  const pending = new Map<number, { resolve: (r: any) => void; reject: (e: Error) => void }>()
  const write = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    let nl: number
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      if (line.trim() === "") continue
      const message = JSON.parse(line)
      if (message.method !== undefined && message.id !== undefined) write({ id: message.id, error: { code: -32601, message: "not offered" } })
      else if (message.method !== undefined) onNotification(message.method, message.params)
      else {
        const waiter = pending.get(message.id)
        pending.delete(message.id)
        if (message.error !== undefined) waiter?.reject(new Error(JSON.stringify(message.error)))
        else waiter?.resolve(message.result)
      }
    }
  })
  const failAll = (why: string) => {
    for (const w of pending.values()) w.reject(new Error(why))
    pending.clear()
  }
  child.once("exit", (code) => failAll(`exited with ${code}`))
  return {
    request: (method: string, params: object): Promise<any> =>
      new Promise((res, rej) => {
        const id = nextId++
        pending.set(id, { resolve: res, reject: rej })
        write({ id, method, params })
      })
  }
}

const exited = (child: ChildProcess) =>
  new Promise<void>((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once("exit", () => done())))

/** Spawns `argv`, runs `drive` until it reports the first text, then closes stdin and waits for the exit. */
const timeToText = async (
  argv: ReadonlyArray<string>,
  extraEnv: Record<string, string>,
  drive: (client: ReturnType<typeof rpc>, firstText: Promise<void>) => Promise<unknown>,
  isText: (method: string, params: any) => boolean
): Promise<number> => {
  const start = performance.now()
  const child = spawn(process.execPath, argv, { stdio: ["pipe", "pipe", "inherit"], env: env(extraEnv), cwd: dir })
  let markText: () => void = () => undefined
  const firstText = new Promise<void>((r) => (markText = r))
  let at: number | undefined
  const client = rpc(child, (method, params) => {
    if (at === undefined && isText(method, params)) {
      at = performance.now()
      markText()
    }
  })
  await drive(client, firstText)
  child.stdin!.end()
  await exited(child)
  if (at === undefined) throw new Error(`${argv.join(" ")}: no text`)
  return at - start
}

const acpTurn = (argv: ReadonlyArray<string>, extraEnv: Record<string, string> = {}) =>
  timeToText(argv, extraEnv, async (client, firstText) => {
    await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await client.request("session/new", { cwd: dir, mcpServers: [] })
    await client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] })
    await firstText
  }, (method, params) => method === "session/update" && params.update?.sessionUpdate === "agent_message_chunk" && params.update.content?.type === "text")

const sdkTurn = (argv: ReadonlyArray<string>, extraEnv: Record<string, string> = {}) =>
  timeToText(argv, extraEnv, async (client, firstText) => {
    await client.request("initialize", { protocolVersion: 1, clientInfo: { name: "bench", version: "0" } })
    const { session } = await client.request("session.create", { cwd: dir })
    await client.request("session.prompt", { sessionId: session.id, prompt: "hello" })
    await firstText
  }, (method, params) => method === "session.event" && params.event?.type === "text-delta")

const nodeBaseline = async () => {
  const start = performance.now()
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore", env: env() })
  await exited(child)
  return performance.now() - start
}

let requestArrived: (() => void) | undefined
const server = await FakeOpenAIServer.startFakeOpenAIServer({
  respond: () => {
    requestArrived?.()
    return { text: "ok", usage: { input: 1, output: 1 } }
  }
})
/** `dsh run` spawn → the first request at the fake OpenAI server; then waits for the exit. */
const runToRequest = async (extraEnv: Record<string, string> = {}, main = MAIN) => {
  const arrived = new Promise<number>((r) => (requestArrived = () => r(performance.now())))
  const start = performance.now()
  const child = spawn(process.execPath, [main, "run", "--model", "openai:bench", "hello"], {
    stdio: "ignore",
    cwd: dir,
    env: env({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench", ...extraEnv })
  })
  const at = await Promise.race([arrived, exited(child).then(() => Number.NaN)])
  await exited(child)
  if (Number.isNaN(at)) throw new Error("dsh run exited before its first model request")
  return at - start
}

const dshAcp = [MAIN, "acp", "--model", `scripted:${script}`]
const dshSdk = [MAIN, "sdk", "--model", `scripted:${script}`]
const samplers: Record<string, () => Promise<number>> = {
  "node -e 0": nodeBaseline,
  "acp echo agent": () => acpTurn([ECHO_AGENT]),
  "dsh acp": () => acpTurn(dshAcp),
  "sdk echo server": () => sdkTurn([SDK_ECHO]),
  "dsh sdk": () => sdkTurn(dshSdk),
  "dsh run": () => runToRequest(),
  "dsh acp (resident)": () => acpTurn(dshAcp, RESIDENT),
  "dsh sdk (resident)": () => sdkTurn(dshSdk, RESIDENT),
  "dsh run (resident)": () => runToRequest(RESIDENT),
  ...(COLD
    ? {
      "dsh acp (cold)": () => acpTurn(dshAcp, cold()),
      "dsh sdk (cold)": () => sdkTurn(dshSdk, cold()),
      "dsh run (cold)": () => runToRequest(cold())
    }
    : {}),
  ...(AGAINST !== undefined
    ? {
      "dsh acp (against)": () => acpTurn([AGAINST, ...dshAcp.slice(1)]),
      "dsh sdk (against)": () => sdkTurn([AGAINST, ...dshSdk.slice(1)]),
      "dsh run (against)": () => runToRequest({}, AGAINST)
    }
    : {})
}

/** Waits for the resident to settle, then takes one sample. */
const sample = async (name: string) => {
  if (resident !== undefined) await Status.residentSettled(resident.socket)
  return samplers[name]!()
}

// Warm-up: fills the CLI's compile cache and the OS page cache for every program, and starts
// the resident.
for (const name of Object.keys(samplers)) await sample(name)
const samples: Record<string, Array<number>> = Object.fromEntries(Object.keys(samplers).map((k) => [k, []]))
const loadBefore = loadavg()[0]!
for (let round = 0; round < RUNS; round++) {
  const order = Object.keys(samplers).sort(() => Math.random() - 0.5)
  for (const name of order) samples[name]!.push(await sample(name))
}
const loadAfter = loadavg()[0]!
await server.close()
const started = resident === undefined ? undefined : await Status.residentStatus(resident.socket)
if (started !== undefined) process.kill(started.pid, "SIGTERM")
rmSync(dir, { recursive: true, force: true })

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = sorted(xs)
  const i = (s.length - 1) * q
  return s[Math.floor(i)]! + (s[Math.ceil(i)]! - s[Math.floor(i)]!) * (i - Math.floor(i))
}
const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)
/** The median of the per-round ratios: each pair was measured moments apart. */
const pairedRatio = (a: string, b: string) => median(samples[a]!.map((x, i) => x / samples[b]![i]!))
const ms = (x: number) => `${x.toFixed(1)} ms`

console.log(`${RUNS} interleaved rounds on ${process.execPath} (Node ${process.versions.node}); load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`)
for (const [name, xs] of Object.entries(samples)) {
  console.log(`  ${name.padEnd(21)} median ${ms(median(xs)).padStart(9)}  p25–p75 ${ms(quantile(xs, 0.25))}–${ms(quantile(xs, 0.75))}  min ${ms(sorted(xs)[0]!)}`)
}
const ratios: Record<string, { of: string; to: string; target?: number }> = {
  acp: { of: "dsh acp", to: "acp echo agent" },
  sdk: { of: "dsh sdk", to: "sdk echo server" },
  run: { of: "dsh run", to: "node -e 0" },
  acpResident: { of: "dsh acp (resident)", to: "acp echo agent", target: ACP_TARGET },
  sdkResident: { of: "dsh sdk (resident)", to: "sdk echo server" },
  runResident: { of: "dsh run (resident)", to: "node -e 0", target: RUN_TARGET },
  ...(COLD
    ? {
      acpCold: { of: "dsh acp (cold)", to: "acp echo agent" },
      sdkCold: { of: "dsh sdk (cold)", to: "sdk echo server" },
      runCold: { of: "dsh run (cold)", to: "node -e 0" }
    }
    : {}),
  ...(AGAINST !== undefined
    ? {
      acpAgainst: { of: "dsh acp", to: "dsh acp (against)" },
      sdkAgainst: { of: "dsh sdk", to: "dsh sdk (against)" },
      runAgainst: { of: "dsh run", to: "dsh run (against)" }
    }
    : {})
}
const result: Record<string, number> = {}
for (const [key, { of, to, target }] of Object.entries(ratios)) {
  const r = median(samples[of]!) / median(samples[to]!)
  result[`${key}Ratio`] = Number(r.toFixed(2))
  result[`${key}PairedRatio`] = Number(pairedRatio(of, to).toFixed(2))
  console.log(`${of} / ${to}: ${r.toFixed(2)}× (paired per round ${pairedRatio(of, to).toFixed(2)}×)${target === undefined ? "" : ` target ≤ ${target}×`}`)
}
console.log(JSON.stringify({
  bench: "startup",
  runs: RUNS,
  ...Object.fromEntries(Object.entries(samples).map(([k, xs]) => [`${k.replace(/[^a-z]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}Ms`, Number(median(xs).toFixed(1))])),
  ...result,
  acpTarget: ACP_TARGET,
  runTarget: RUN_TARGET,
  loadAverage: [Number(loadBefore.toFixed(1)), Number(loadAfter.toFixed(1))]
}))
