/**
 * Spawn-to-first-text of an `acp:dsh` child on the scripted model: from the parent's
 * `spawn` call (process start, `initialize`, `session/new`, `session/prompt`) to the first
 * `agent_message_chunk` the parent sees. Also the time to the `initialize` answer alone, and
 * `node -e 0` measured in the same run as the baseline. One warm-up run (fills the V8
 * compile cache), then RUNS timed runs; medians.
 *
 *   node --conditions=@dsh/source packages/subagent-acp/bench/spawn-to-first-text.ts [runs]
 */
import * as acp from "@agentclientprotocol/sdk/unstable"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Conformance, Fixtures } from "@dsh/subagent/testing"
import { LocalProcessLauncher, WebStdio } from "@dsh/subprocess"
import { Effect, Stream } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { AcpAgentConfig, AcpProvider } from "../src/index.ts"

const TARGET = 4
const RUNS = Number(process.argv[2] ?? 10)
const CLI_MAIN = resolve(import.meta.dirname, "../../cli/dist/main.js")
if (!existsSync(CLI_MAIN)) {
  console.error(`build the CLI first: ${CLI_MAIN} is missing`)
  process.exit(2)
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}

const dir = mkdtempSync(join(tmpdir(), "dsh-acp-bench-"))
const script = join(dir, "script.json")
writeFileSync(script, JSON.stringify(Conformance.conformanceScript))

/** `node -e 0`: the floor any Node-based child pays. */
const nodeBaseline = () =>
  new Promise<number>((done) => {
    const start = performance.now()
    spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("exit", () => done(performance.now() - start))
  })

/** Spawn `dsh acp` and time the `initialize` answer. */
const toInitialize = async (): Promise<number> => {
  const start = performance.now()
  const child = spawn(process.execPath, [CLI_MAIN, "acp", "--model", `scripted:${script}`], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { PATH: process.env.PATH ?? "", DSH_HOME: mkdtempSync(join(dir, "home-")) }
  })
  const io = WebStdio.webStdio(child.stdin, child.stdout)
  const elapsed = await acp.client({ name: "bench" }).connectWith(acp.ndJsonStream(io.writable, io.readable), async (agent) => {
    await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
    return performance.now() - start
  })
  child.stdin.end()
  await new Promise((r) => child.once("exit", r))
  return elapsed
}

/** One delegation through the real provider; resolves with the time to the first text delta. */
const toFirstText = (): Promise<number> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    let firstText: number | undefined
    const tree = yield* SubagentTree.make({
      childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }),
      onChildEvent: (_handle, event) => Effect.sync(() => {
        if (event.type === "text-delta" && firstText === undefined) firstText = performance.now()
      })
    })
    const dsh = AcpAgentConfig.dshAcpAgent({ command: process.execPath, args: [CLI_MAIN] })
    const provider = yield* AcpProvider.make({ agents: [dsh], parentEnv: { PATH: process.env.PATH } })
    const subagents = yield* Subagents.make({ tree, providers: [provider], types: AcpAgentConfig.acpAgentTypes([dsh]) })
    const parent: Vocabulary.ParentInfo = Fixtures.testParent({ provider: "scripted", model: script, stream: () => Stream.empty, generate: () => Effect.die("unused") }, { cwd: dir })
    const start = performance.now()
    const r = yield* subagents.spawn({ prompt: "CONFORMANCE echo bench", description: "bench", agent: "acp:dsh" }, parent)
    if (r.status !== "completed" || firstText === undefined) return yield* Effect.die(new Error(`run ${r.status}: ${r.notes ?? "no text"}`))
    return firstText - start
  })).pipe(Effect.provide(LocalProcessLauncher.layer())))

await toFirstText() // warm-up: the compile cache and the OS page cache
const baseline: Array<number> = []
const init: Array<number> = []
const first: Array<number> = []
for (let i = 0; i < RUNS; i++) {
  baseline.push(await nodeBaseline())
  init.push(await toInitialize())
  first.push(await toFirstText())
}
const b = median(baseline)
const f = median(first)
const n = median(init)
const ratio = f / b
console.log(`acp initialize answered: median ${n.toFixed(1)} ms (${(n / b).toFixed(2)}× node -e 0)`)
console.log(`acp spawn-to-first-text: median ${f.toFixed(1)} ms, node -e 0: ${b.toFixed(1)} ms, ratio ${ratio.toFixed(2)}× (target ≤ ${TARGET}×)`)
console.log(JSON.stringify({
  bench: "acp-spawn",
  runs: RUNS,
  medianMs: Number(f.toFixed(1)),
  initializeMs: Number(n.toFixed(1)),
  nodeBaselineMs: Number(b.toFixed(1)),
  ratio: Number(ratio.toFixed(2)),
  target: TARGET
}))
