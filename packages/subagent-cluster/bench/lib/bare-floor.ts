// Runs `bare-cluster.ts` as `thousand-children.ts` runs dsh: three runner processes, a client
// process sending `count` persisted messages at `concurrency`, the first runner killed (SIGKILL)
// once half of them are answered. Wall time from the client's spawn to its exit, as for `dsh run`.
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"

const SCRIPT = join(import.meta.dirname, "bare-cluster.ts")

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const node = (args: Array<string>) =>
  spawn(process.execPath, ["--conditions=@dsh/source", SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] })

/** Resolves on the first stdout line `match` accepts; rejects when the process ends first. */
const line = (child: ChildProcess, match: (line: string) => boolean) =>
  new Promise<string>((done, fail) => {
    let out = ""
    let err = ""
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()))
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString()
      const found = out.split("\n").find(match)
      if (found !== undefined) done(found)
    })
    child.on("close", (code) => fail(new Error(`bare-cluster.ts exited (${code}): ${err.slice(-400)}`)))
  })

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((done) => child.on("close", () => done()))

export interface BareResult {
  readonly ms: number
  readonly clientCpu: number
  readonly runnersCpu: number
}

export const measureBare = async (
  url: string,
  count: number,
  concurrency: number,
  cpuSeconds: (pid: number | undefined) => number | undefined
): Promise<BareResult> => {
  const ports = [await freePort(), await freePort(), await freePort()]
  const runners = ports.map((port) => node(["runner", url, String(port)]))
  try {
    await Promise.all(runners.map((r) => line(r, (l) => l === "ready")))
    const before = runners.map((r) => cpuSeconds(r.pid) ?? 0)
    const started = performance.now()
    const client = node(["client", url, String(count), String(concurrency)])
    const last = runners.map(() => 0)
    const watch = setInterval(() => runners.forEach((r, i) => (last[i] = cpuSeconds(r.pid) ?? last[i]!)), 250)
    let clientCpu = 0
    const cpuOfClient = setInterval(() => (clientCpu = cpuSeconds(client.pid) ?? clientCpu), 100)
    void line(client, (l) => l === `replied ${Math.floor(count / 2 / 50) * 50}`).then(() => runners[0]!.kill("SIGKILL"), () => undefined)
    await line(client, (l) => l.startsWith("done "))
    clientCpu = cpuSeconds(client.pid) ?? clientCpu
    await exited(client)
    const ms = performance.now() - started
    clearInterval(watch)
    clearInterval(cpuOfClient)
    runners.forEach((r, i) => (last[i] = cpuSeconds(r.pid) ?? last[i]!))
    return { ms, clientCpu, runnersCpu: last.reduce((a, b, i) => a + b - before[i]!, 0) }
  } finally {
    for (const r of runners) r.kill("SIGTERM")
    await Promise.all(runners.map(exited))
  }
}
