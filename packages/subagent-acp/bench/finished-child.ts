/**
 * The parent-side cost of a finished ACP child that never exits on EOF (like Codex), in the
 * same run:
 * - `before`: when the parent got its result until now — only once the child was closed:
 *   connection, stdin, the 1 s exit grace the child never uses, the launcher's ladder. Measured
 *   as the time from `spawn` until the child's process is gone (the same closing steps, which
 *   now run in the background);
 * - `after`: when the parent gets its result now (`spawn` returns; the close goes on behind);
 * - `warm`: a second message to the finished child (`send`), answered by the kept process;
 * - `cold`: the same after the keep-alive, by `session/load` on a new process;
 * - baseline: `node -e 0`.
 * One warm-up run, then RUNS timed runs; medians.
 *
 *   node --conditions=@dsh/source packages/subagent-acp/bench/finished-child.ts [runs]
 */
import { Subagents, SubagentTree } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Effect, Stream } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AcpAgentConfig, AcpProvider } from "../src/index.ts"
import { FakeAcpAgent } from "../src/testing.ts"

const RUNS = Number(process.argv[2] ?? 7)
const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}
const nodeBaseline = () =>
  new Promise<number>((done) => {
    const start = performance.now()
    spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("exit", () => done(performance.now() - start))
  })

const state = mkdtempSync(join(tmpdir(), "dsh-acp-bench-state-"))
const codex = FakeAcpAgent.fakeAcpAgent({ name: "codex", exitOnEof: false, loadSession: true, stateDir: state })
const parent = Fixtures.testParent({ provider: "bench", model: "none", stream: () => Stream.empty, generate: () => Effect.die("unused") }, { cwd: tmpdir() })
const pidOf = (output: string) => Number(/pid (\d+)/.exec(output)?.[1])

/** Polls (every 2 ms) until the process is gone; its time. */
const goneAt = (pid: number) =>
  Effect.gen(function*() {
    while (!ProcessChecks.isGone(pid)) yield* Effect.sleep(2)
    return performance.now()
  })

const once = (keepAlive: "60 seconds" | 0) =>
  Effect.runPromise(Effect.gen(function*() {
    const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const provider = yield* AcpProvider.make({ agents: [codex], parentEnv: { PATH: process.env.PATH }, keepAlive })
    const subagents = yield* Subagents.make({ tree, providers: [provider], types: AcpAgentConfig.acpAgentTypes([codex]) })
    const start = performance.now()
    const r = yield* subagents.spawn({ prompt: "whoami", description: "bench", agent: "acp:codex" }, parent)
    const result = performance.now()
    if (r.status !== "completed") return yield* Effect.die(new Error(`run ${r.status}: ${r.notes ?? ""}`))
    const pid = pidOf(r.output)
    if (keepAlive === 0) {
      // The result came first; the close of the child goes on in the background.
      const gone = yield* goneAt(pid)
      const cold = performance.now()
      const again = yield* subagents.send(r.handle, "whoami", "user")
      if (again._tag !== "Replied" || pidOf(again.result.output) === pid) return yield* Effect.die(new Error("not continued cold"))
      return { after: result - start, before: gone - start, cold: performance.now() - cold }
    }
    const warm = performance.now()
    const again = yield* subagents.send(r.handle, "whoami", "user")
    if (again._tag !== "Replied" || pidOf(again.result.output) !== pid) return yield* Effect.die(new Error("not continued warm"))
    return { warm: performance.now() - warm }
  }).pipe(Effect.scoped, Effect.provide(LocalProcessLauncher.layer())))

await once(0)
const baseline: Array<number> = []
const before: Array<number> = []
const after: Array<number> = []
const cold: Array<number> = []
const warm: Array<number> = []
for (let i = 0; i < RUNS; i++) {
  baseline.push(await nodeBaseline())
  const c = await once(0)
  before.push(c.before!)
  after.push(c.after!)
  cold.push(c.cold!)
  warm.push((await once("60 seconds")).warm!)
}
const [b, bf, af, cd, wm] = [median(baseline), median(before), median(after), median(cold), median(warm)]
console.log(`finished child that never exits on EOF: result before its teardown ${af.toFixed(0)} ms, after it (the old wait) ${bf.toFixed(0)} ms: ${(bf - af).toFixed(0)} ms saved per child, ${(bf / af).toFixed(2)}×`)
console.log(`a second message: warm (same process) ${wm.toFixed(0)} ms, cold (session/load on a new process) ${cd.toFixed(0)} ms, ${(cd / wm).toFixed(1)}×; node -e 0: ${b.toFixed(0)} ms`)
console.log(JSON.stringify({
  bench: "acp-finished-child",
  runs: RUNS,
  resultMs: Number(af.toFixed(1)),
  resultAfterTeardownMs: Number(bf.toFixed(1)),
  savedMs: Number((bf - af).toFixed(1)),
  warmSendMs: Number(wm.toFixed(1)),
  coldSendMs: Number(cd.toFixed(1)),
  nodeBaselineMs: Number(b.toFixed(1))
}))
