// 1,000 children of one `dsh run`, delegated through 3 `dsh runner` processes over PostgreSQL,
// with one runner killed (SIGKILL) once half of the children have asked the model; compared in
// the same run with the same 1,000 children in process on the file store. Prints wall time,
// children/s and lost results (children not `completed` in the parent's summary: must be 0).
// The model is the fake OpenAI-compatible server on 127.0.0.1. BENCH_RUNS=n repeats (medians).
import { type FakeReply, type FakeRequest, startFakeOpenAIServer } from "@dsh/llm-openai/testing"
import { startPostgresAsync } from "@dsh/testing-pg"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const CHILDREN = Number(process.env.BENCH_CHILDREN ?? 1000)
const RUNS = Number(process.env.BENCH_RUNS ?? 1)
const CONFIG = `[limits]\nmax_concurrent = 64\nmax_children = ${CHILDREN + 10}\ntimeout_seconds = 0\n`

const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const firstUser = (r: FakeRequest) => (r.body as Body).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeRequest) => (r.body as Body).messages.filter((m) => m.role === "assistant").length

/** One `dsh run` delegating CHILDREN children in one step; `onChild` hears each child's first request. */
const model = (onChild: (count: number) => void) => {
  let seen = 0
  return startFakeOpenAIServer({
    respond: (r): FakeReply => {
      if (firstUser(r).startsWith("CHILD")) {
        onChild(++seen)
        return { text: `done ${firstUser(r)}` }
      }
      return step(r) === 0
        ? { toolCalls: Array.from({ length: CHILDREN }, (_, i) => ({ name: "subagent", arguments: { description: `c${i}`, prompt: `CHILD ${i}`, agent: "explore" } })) }
        : { text: "all done" }
    }
  })
}

const start = (args: Array<string>, env: Record<string, string>) =>
  spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env }, stdio: ["ignore", "pipe", "pipe"] })

const finished = (child: ChildProcess) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("close", (code) => done({ code, stdout, stderr }))
  })

const ready = (runner: ChildProcess) =>
  new Promise<void>((done, fail) => {
    let out = ""
    runner.stdout!.on("data", (c: Buffer) => {
      out += c.toString()
      if (out.includes("dsh runner listening on")) done()
    })
    runner.on("close", (code) => fail(new Error(`runner exited (${code})`)))
  })

/** The parent's JSON summary: wall time and the children that did not complete. */
const measure = async (args: Array<string>, env: Record<string, string>) => {
  const t0 = performance.now()
  const run = await finished(start([...args, "--model", "openai:bench", "--output-format", "json", "PARENT fan out"], env))
  const ms = performance.now() - t0
  if (run.code !== 0) throw new Error(`dsh run failed (${run.code}): ${run.stderr.slice(0, 500)}`)
  const summary = JSON.parse(run.stdout) as { subagents: Array<{ status: string }> }
  const lost = CHILDREN - summary.subagents.filter((s) => s.status === "completed").length
  return { ms, lost }
}

const home = (config: string) => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-bench-cluster-"))
  writeFileSync(join(dir, "config.toml"), config)
  return dir
}

const pg = await startPostgresAsync({ durable: true })
const local: Array<{ ms: number; lost: number }> = []
const cluster: Array<{ ms: number; lost: number }> = []
try {
  for (let i = 0; i < RUNS; i++) {
    // In process, file store.
    {
      const server = await model(() => undefined)
      const env = { DSH_HOME: home(CONFIG), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" }
      local.push(await measure(["run"], env))
      await server.close()
    }
    // Three runners over PostgreSQL; the first is killed once half the children have started.
    {
      const url = await pg.createDatabase()
      let victim: ChildProcess | undefined
      const server = await model((count) => {
        if (count === Math.floor(CHILDREN / 2)) victim?.kill("SIGKILL")
      })
      const env = { DSH_HOME: home(CONFIG), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" }
      const runners = [0, 1, 2].map(() => start(["runner", "--store", url], env))
      await Promise.all(runners.map(ready))
      victim = runners[0]
      cluster.push(await measure(["run", "--store", url, "--cluster"], env))
      for (const r of runners) r.kill("SIGTERM")
      await Promise.all(runners.map((r) => (r.exitCode !== null || r.signalCode !== null ? undefined : new Promise((d) => r.on("close", d)))))
      await server.close()
    }
  }
} finally {
  await pg.stop()
}

const l = median(local.map((r) => r.ms))
const c = median(cluster.map((r) => r.ms))
const lost = cluster.reduce((n, r) => n + r.lost, 0) + local.reduce((n, r) => n + r.lost, 0)
console.log(`${CHILDREN} children, in process on the file store: median ${(l / 1000).toFixed(2)} s, ${(CHILDREN / (l / 1000)).toFixed(0)} children/s`)
console.log(`${CHILDREN} children on 3 runners over PostgreSQL, one killed half-way: median ${(c / 1000).toFixed(2)} s, ${(CHILDREN / (c / 1000)).toFixed(0)} children/s; ratio ${(c / l).toFixed(2)}x; lost results: ${lost}; ${RUNS} run(s)`)
console.log(JSON.stringify({
  bench: "cluster-thousand-children",
  children: CHILDREN,
  runs: RUNS,
  inProcessMs: Number(l.toFixed(0)),
  clusterMs: Number(c.toFixed(0)),
  inProcessPerSecond: Number((CHILDREN / (l / 1000)).toFixed(1)),
  clusterPerSecond: Number((CHILDREN / (c / 1000)).toFixed(1)),
  ratio: Number((c / l).toFixed(2)),
  lost
}))
