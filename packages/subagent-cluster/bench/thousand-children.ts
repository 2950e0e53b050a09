// 1,000 children of one `dsh run`, delegated through 3 `dsh runner` processes over PostgreSQL,
// with one runner killed (SIGKILL) once half of the children have asked the model; compared in
// the same run with the same children in process on the file store. Prints wall time,
// children/s, the pause after the kill, lost results (children not `completed` in the parent's
// summary), duplicate announcements (a child's answer more than once in the parent's last
// request), and the PostgreSQL statements (round trips) per child by kind, counted by the server
// itself (`pg_stat_statements`). The model is the fake OpenAI-compatible server on 127.0.0.1.
// The floor, in the same run: bare Effect Cluster (`lib/bare-cluster.ts`) on the same settings,
// as many persisted messages at the same concurrency to an entity that answers at once, three
// runners, one killed half-way; dsh's time is printed as a ratio to it.
//
//   pnpm bench thousand-children                       # 1,000 children
//   node --conditions=@dsh/source packages/subagent-cluster/bench/thousand-children.ts --children 10000
//
// BENCH_CHILDREN=n is the same as --children n; BENCH_RUNS=n repeats (medians).
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Postgres } from "@dsh/testing-pg"
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { type BareResult, measureBare } from "./lib/bare-floor.ts"
import { makeCounter, type RoundTrips } from "./lib/round-trips.ts"

const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const flags = parseArgs({ options: { children: { type: "string" }, runs: { type: "string" } }, strict: false }).values
const CHILDREN = Number(flags.children ?? process.env.BENCH_CHILDREN ?? 1000)
const RUNS = Number(flags.runs ?? process.env.BENCH_RUNS ?? 1)
const CONFIG = `[limits]\nmax_concurrent = 64\nmax_children = ${CHILDREN + 10}\ntimeout_seconds = 0\n`

const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
/**
 * The child's task, from any of its user messages: a child resumed on another runner has its
 * transcript's notices and the carry-on message before and after it (answering such a child the
 * lead's 1,000 tool calls made the run after a kill do work no user's would).
 */
const childTask = (r: FakeOpenAIServer.FakeRequest): string | undefined => {
  for (const m of (r.body as Body).messages) {
    if (m.role !== "user") continue
    const task = /CHILD \d+/.exec(typeof m.content === "string" ? m.content : JSON.stringify(m.content))?.[0]
    if (task !== undefined) return task
  }
  return undefined
}
const step = (r: FakeOpenAIServer.FakeRequest) => (r.body as Body).messages.filter((m) => m.role === "assistant").length

/** What the model saw: when each child asked (ms since start), and the parent's last request. */
interface Seen {
  readonly times: Array<number>
  last: FakeOpenAIServer.FakeRequest | undefined
}

/** One `dsh run` delegating CHILDREN children in one step; `onChild` hears each child request. */
const model = (seen: Seen, onChild: (count: number) => void) => {
  let count = 0
  return FakeOpenAIServer.startFakeOpenAIServer({
    respond: (r): FakeOpenAIServer.FakeReply => {
      const task = childTask(r)
      if (task !== undefined) {
        seen.times.push(performance.now())
        onChild(++count)
        return { text: `done ${task}.` }
      }
      seen.last = r
      return step(r) === 0
        ? { toolCalls: Array.from({ length: CHILDREN }, (_, i) => ({ name: "subagent", arguments: { description: `c${i}`, prompt: `CHILD ${i}`, agent: "explore" } })) }
        : { text: "all done" }
    }
  })
}

// BENCH_CPU_PROF=<dir>: every dsh process writes a V8 CPU profile there (the profile behind the note).
const PROFILE = process.env.BENCH_CPU_PROF === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
// BENCH_LOG_DIR=<dir>: every cluster process logs at debug level to <dir>/<name>.log (to find a stall).
const LOG_DIR = process.env.BENCH_LOG_DIR
const LOG_ENV: Record<string, string> = LOG_DIR === undefined ? {} : { DSH_LOG_LEVEL: "debug" }
const start = (args: Array<string>, env: Record<string, string>, name?: string) => {
  const child = spawn(process.execPath, [...PROFILE, MAIN, ...args], { env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DSH_RESIDENT: "0", ...env, ...(name === undefined ? {} : LOG_ENV) }, stdio: ["ignore", "pipe", "pipe"] })
  if (LOG_DIR !== undefined && name !== undefined) child.stderr!.pipe(createWriteStream(join(LOG_DIR, `${name}.log`)))
  return child
}

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
    runner.stderr!.resume()
    runner.on("close", (code) => fail(new Error(`runner exited (${code})`)))
  })

/** CPU seconds a process has used so far (user + system, from /proc), or undefined once it is gone. */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/** The last CPU figure seen of each process, looked at four times a second (for the profile only). */
const cpuWatch = (processes: ReadonlyArray<ChildProcess>) => {
  const last = processes.map(() => 0)
  const look = () => processes.forEach((p, i) => (last[i] = cpuSeconds(p.pid) ?? last[i]!))
  const timer = setInterval(look, 250)
  return { stop: () => (look(), clearInterval(timer), last) }
}

/** Children whose answer the parent's last request holds more than once. */
const duplicates = (last: FakeOpenAIServer.FakeRequest | undefined): number => {
  const text = JSON.stringify((last?.body as Body | undefined)?.messages ?? [])
  let extra = 0
  for (let i = 0; i < CHILDREN; i++) {
    const n = text.split(`done CHILD ${i}.`).length - 1
    if (n > 1) extra += n - 1
  }
  return extra
}

/** The parent's JSON summary: wall time, the children that did not complete, duplicates. */
const measure = async (args: Array<string>, env: Record<string, string>, seen: Seen, runners: ReadonlyArray<ChildProcess> = []) => {
  const t0 = performance.now()
  const parent = start([...args, "--model", "openai:bench", "--output-format", "json", "PARENT fan out"], env, runners.length > 0 ? "parent" : undefined)
  const cpu = cpuWatch([parent, ...runners])
  const run = await finished(parent)
  const ms = performance.now() - t0
  const [parentCpu = 0, ...runnerCpu] = cpu.stop()
  if (run.code !== 0) throw new Error(`dsh run failed (${run.code}): ${run.stderr.slice(0, 500)}`)
  const summary = JSON.parse(run.stdout) as { subagents: Array<{ status: string }> }
  const lost = CHILDREN - summary.subagents.filter((s) => s.status === "completed").length
  return { ms, lost, duplicates: duplicates(seen.last), parentCpu, runnersCpu: runnerCpu.reduce((a, b) => a + b, 0) }
}

/** The longest stretch after `killedAt` in which no child asked the model (until the last one did). */
const pauseAfter = (killedAt: number, times: ReadonlyArray<number>): number => {
  const after = [killedAt, ...times.filter((t) => t >= killedAt)].sort((a, b) => a - b)
  let longest = 0
  let from = killedAt
  for (let i = 1; i < after.length; i++) if (after[i]! - after[i - 1]! > longest) (longest = after[i]! - after[i - 1]!), (from = after[i - 1]!)
  if (LOG_DIR !== undefined) {
    const wall = (t: number) => new Date(performance.timeOrigin + t).toISOString()
    console.log(`kill at ${wall(killedAt)}; longest pause ${(longest / 1000).toFixed(2)} s from ${wall(from)}`)
  }
  return longest
}

const home = (config: string) => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-bench-cluster-"))
  writeFileSync(join(dir, "config.toml"), config)
  return dir
}

interface Result {
  readonly ms: number
  readonly lost: number
  readonly duplicates: number
  readonly parentCpu: number
  readonly runnersCpu: number
}

const pg = await Postgres.startPostgresAsync({ durable: true, settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.max=10000"] })
const counter = await makeCounter(pg.url)
const local: Array<Result> = []
const cluster: Array<Result & { readonly pauseMs: number; readonly trips: RoundTrips }> = []
const bare: Array<BareResult> = []
try {
  for (let i = 0; i < RUNS; i++) {
    // In process, file store.
    {
      const seen: Seen = { times: [], last: undefined }
      const server = await model(seen, () => undefined)
      const env = { DSH_HOME: home(CONFIG), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" }
      local.push(await measure(["run"], env, seen))
      await server.close()
    }
    // Three runners over PostgreSQL; the first is killed once half the children have started.
    {
      const database = `bench_${i}`
      const url = await pg.createDatabase(database)
      let victim: ChildProcess | undefined
      let killedAt = Number.NaN
      const seen: Seen = { times: [], last: undefined }
      const server = await model(seen, (count) => {
        if (count === Math.floor(CHILDREN / 2)) {
          killedAt = performance.now()
          victim?.kill("SIGKILL")
        }
      })
      const env = { DSH_HOME: home(CONFIG), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" }
      const runners = [0, 1, 2].map((n) => start(["runner", "--store", url], env, `runner-${i}-${n}`))
      await Promise.all(runners.map(ready))
      victim = runners[0]
      await counter.reset(database)
      const before = runners.map((r) => cpuSeconds(r.pid) ?? 0).reduce((a, b) => a + b, 0)
      const measured = await measure(["run", "--store", url, "--cluster"], env, seen, runners)
      const result = { ...measured, runnersCpu: measured.runnersCpu - before }
      for (const r of runners) r.kill("SIGTERM")
      await Promise.all(runners.map((r) => (r.exitCode !== null || r.signalCode !== null ? undefined : new Promise((d) => r.on("close", d)))))
      await server.close()
      cluster.push({ ...result, pauseMs: pauseAfter(killedAt, seen.times), trips: await counter.read(database, url) })
    }
    // Bare Effect Cluster, the same number of messages, lane-sized concurrency (`max_concurrent`).
    bare.push(await measureBare(await pg.createDatabase(`bare_${i}`), CHILDREN, 64, cpuSeconds))
  }
} finally {
  await pg.stop()
}

const l = median(local.map((r) => r.ms))
const c = median(cluster.map((r) => r.ms))
const pause = median(cluster.map((r) => r.pauseMs))
const lost = cluster.reduce((n, r) => n + r.lost, 0) + local.reduce((n, r) => n + r.lost, 0)
const dup = cluster.reduce((n, r) => n + r.duplicates, 0) + local.reduce((n, r) => n + r.duplicates, 0)
// The round trips of the median run (by wall time).
const trips = [...cluster].sort((a, b) => a.ms - b.ms)[Math.floor(cluster.length / 2)]!.trips
const perChild = (n: number) => Number((n / CHILDREN).toFixed(2))
console.log(`${CHILDREN} children, in process on the file store: median ${(l / 1000).toFixed(2)} s, ${(CHILDREN / (l / 1000)).toFixed(0)} children/s`)
console.log(`${CHILDREN} children on 3 runners over PostgreSQL, one killed half-way: median ${(c / 1000).toFixed(2)} s, ${(CHILDREN / (c / 1000)).toFixed(1)} children/s; ratio ${(c / l).toFixed(2)}x the in-process time; pause after the kill ${(pause / 1000).toFixed(2)} s; lost results: ${lost}; duplicate announcements: ${dup}; ${RUNS} run(s)`)
const b = median(bare.map((r) => r.ms))
const bareRun = [...bare].sort((x, y) => x.ms - y.ms)[Math.floor(bare.length / 2)]!
console.log(`bare Effect Cluster, same settings, ${CHILDREN} persisted messages to an entity that answers at once, one runner killed half-way: median ${(b / 1000).toFixed(2)} s, ${(CHILDREN / (b / 1000)).toFixed(1)} messages/s; dsh's cluster children take ${(c / b).toFixed(2)}x its time (CPU: client ${bareRun.clientCpu.toFixed(1)} s, runners ${bareRun.runnersCpu.toFixed(1)} s)`)
const medianRun = [...cluster].sort((a, b) => a.ms - b.ms)[Math.floor(cluster.length / 2)]!
const localRun = [...local].sort((a, b) => a.ms - b.ms)[Math.floor(local.length / 2)]!
console.log(`CPU: in process ${localRun.parentCpu.toFixed(1)} s; cluster parent ${medianRun.parentCpu.toFixed(1)} s, runners ${medianRun.runnersCpu.toFixed(1)} s (the killed one until its kill)`)
console.log(`PostgreSQL statements (round trips) per child, ${perChild(trips.total)} in all, ${perChild(trips.commits)} commits:`)
console.log(`  (transcript events stored per child: ${perChild(trips.events.children)} in the children's transcripts, ${perChild(trips.events.parent)} in the parent's)`)
for (const [kind, n] of Object.entries(trips.byKind).sort((a, b) => b[1] - a[1])) console.log(`  ${kind.padEnd(28)} ${perChild(n).toFixed(2)}`)
if (process.env.BENCH_PROFILE === "1") for (const t of trips.top) console.log(`  ${String(t.calls).padStart(7)}  ${t.query}`)
console.log(JSON.stringify({
  bench: "cluster-thousand-children",
  children: CHILDREN,
  runs: RUNS,
  inProcessMs: Number(l.toFixed(0)),
  clusterMs: Number(c.toFixed(0)),
  inProcessPerSecond: Number((CHILDREN / (l / 1000)).toFixed(1)),
  clusterPerSecond: Number((CHILDREN / (c / 1000)).toFixed(1)),
  ratio: Number((c / l).toFixed(2)),
  bareClusterMs: Number(b.toFixed(0)),
  bareClusterPerSecond: Number((CHILDREN / (b / 1000)).toFixed(1)),
  ratioToBareCluster: Number((c / b).toFixed(2)),
  bareCpuSeconds: { client: bareRun.clientCpu, runners: Number(bareRun.runnersCpu.toFixed(2)) },
  pauseAfterKillMs: Number(pause.toFixed(0)),
  runsPauseAfterKillMs: cluster.map((r) => Number(r.pauseMs.toFixed(0))),
  runsClusterMs: cluster.map((r) => Number(r.ms.toFixed(0))),
  lost,
  duplicateAnnouncements: dup,
  roundTripsPerChild: Object.fromEntries(Object.entries(trips.byKind).map(([k, n]) => [k, perChild(n)])),
  statementsPerChild: perChild(trips.total),
  eventsPerChild: { children: perChild(trips.events.children), parent: perChild(trips.events.parent) },
  commitsPerChild: perChild(trips.commits),
  cpuSeconds: { inProcess: Number(localRun.parentCpu.toFixed(2)), clusterParent: Number(medianRun.parentCpu.toFixed(2)), clusterRunners: Number(medianRun.runnersCpu.toFixed(2)) }
}))
