import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { Place, type Protocol, Status } from "@dsh/cli-resident"
import { DSH, makeHome, tempDir } from "./support.ts"

// Each test has a resident of its own (DSH_RESIDENT names it), found by that name and stopped
// at the end. Every start below after the first is served by that resident's spare.
const uid = process.getuid?.()
const works = uid !== undefined && process.platform === "linux"
if (!works) console.log("skipping the resident dsh tests: they need Linux")
const dir = Place.residentDir(uid ?? 0)
// `unshare -rn`: a user and network namespace of its own, where this machine allows it.
const unshares = works && spawnSync("unshare", ["-rn", "true"]).status === 0
if (works && !unshares) console.log("skipping the resident namespace test: unshare -rn does not work here")

const script = join(tempDir("dsh-resident-script-"), "script.json")
writeFileSync(script, JSON.stringify({
  rules: [
    { when: { lastUser: "^sh (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    { reply: { text: "result: {{lastTool}}" } }
  ]
}))

const launched: Array<ChildProcess> = []
const residents: Array<number> = []
const servers: Array<FakeOpenAIServer.FakeServer> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  // Every resident this file named, found or not by the test (one started in another namespace too).
  for (const r of await Status.residentsIn(dir)) if (r.name.startsWith(`test-${process.pid}-`) && !residents.includes(r.pid)) residents.push(r.pid)
  for (const pid of residents.splice(0)) if (!ProcessChecks.isGone(pid)) process.kill(pid, "SIGTERM")
  for (const s of servers.splice(0)) await s.close()
})

interface Started {
  readonly child: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  readonly stdout: () => string
  readonly stderr: () => string
}

/** Starts `./dsh` with a clean environment plus `env`; stdin stays open unless `input` is given. */
const start = (args: ReadonlyArray<string>, env: Record<string, string>, input?: string): Started => {
  const child = spawn(DSH, [...args], { cwd: tempDir("dsh-cwd-"), env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] })
  launched.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
  if (input !== undefined) child.stdin!.end(input)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/** A home with Bash unconfined (the probes read the real process tree) and a resident of its own. */
const setup = (extra: Record<string, string> = {}) => {
  const home = makeHome("[sandbox]\nmode = \"off\"\n")
  const name = `test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  return { home, name, env: { DSH_HOME: home, HOME: home, DSH_RESIDENT: name, ...extra } }
}

/** Waits until the resident named `name` has a spare loaded and nothing running (bounded). */
const settled = async (name: string): Promise<Protocol.ResidentStatus & { readonly socket: string }> => {
  for (let i = 0; i < 400; i++) {
    const mine = (await Status.residentsIn(dir)).find((r) => r.name === name)
    if (mine !== undefined) {
      if (!residents.includes(mine.pid)) residents.push(mine.pid)
      const status = await Status.residentSettled(mine.socket, 20_000)
      if (status?.ready === true && status.running === 0) return { ...status, socket: mine.socket }
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`the resident ${name} did not settle`)
}

/** The first start of a name starts its resident (and runs in its own process); then it settles. */
const warmUp = async (env: Record<string, string>) => {
  const first = start(["agents", "list"], env, "")
  expect((await first.exited).code).toBe(0)
  return settled(env.DSH_RESIDENT!)
}

const pidsOf = (text: string) => {
  const m = /self=(\d+) parent=(\d+)/.exec(text)
  if (m === null) throw new Error(`no pids in ${JSON.stringify(text)}`)
  return { bash: Number(m[1]), dsh: Number(m[2]) }
}

const untilFile = async (path: string) => {
  for (let i = 0; i < 800; i++) {
    if (existsSync(path) && readFileSync(path, "utf8").includes("\n")) return readFileSync(path, "utf8")
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`${path} never appeared`)
}

const untilGone = async (pids: ReadonlyArray<number>) => {
  for (let i = 0; i < 400 && pids.some((p) => !ProcessChecks.isGone(p)); i++) await new Promise((r) => setTimeout(r, 25))
  return pids.filter((p) => !ProcessChecks.isGone(p))
}

describe.skipIf(!works)("the resident dsh", { timeout: 90_000 }, () => {
  it("a start served by a warm spare prints, writes and exits as one in its own process", async () => {
    const { env } = setup()
    const before = await warmUp(env)
    const args = ["run", "--model", `scripted:${script}`, "--output-format", "json", "--yolo", "sh echo self=$$ parent=$PPID"]
    const warm = start(args, env, "")
    expect(await warm.exited).toEqual({ code: 0, signal: null })
    const own = start(args, { ...env, DSH_RESIDENT: "0" }, "")
    expect(await own.exited).toEqual({ code: 0, signal: null })
    const [w, o] = [JSON.parse(warm.stdout()), JSON.parse(own.stdout())]
    expect(Object.keys(w)).toEqual(Object.keys(o))
    expect(w.status).toBe("completed")
    // Bash's parent is the dsh process: in its own process the one spawned, warm the spare.
    expect(pidsOf(o.result).dsh).toBe(own.child.pid)
    expect(pidsOf(w.result).dsh).not.toBe(warm.child.pid)
    expect(warm.stderr()).toBe(own.stderr())
    // The spare served one start and ended; the resident loaded the next one.
    expect(ProcessChecks.isGone(pidsOf(w.result).dsh)).toBe(true)
    const after = await settled(env.DSH_RESIDENT)
    expect(after.pid).toBe(before.pid)
  })

  it("bad input: one line on stderr and exit 2, the same as in its own process", async () => {
    const { env } = setup()
    await warmUp(env)
    const warm = start(["run", "--no-such-flag", "x"], env, "")
    const own = start(["run", "--no-such-flag", "x"], { ...env, DSH_RESIDENT: "0" }, "")
    expect(await warm.exited).toEqual({ code: 2, signal: null })
    expect(await own.exited).toEqual({ code: 2, signal: null })
    expect(warm.stderr()).toBe(own.stderr())
    expect(warm.stderr().trim().split("\n")).toHaveLength(1)
  })

  it("stdin: a protocol server reads it to its end; a command that never reads it exits with it open", async () => {
    const { env } = setup()
    await warmUp(env)
    const acp = start(["acp", "--model", `scripted:${script}`], env)
    acp.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`)
    for (let i = 0; i < 400 && !acp.stdout().includes("\n"); i++) await new Promise((r) => setTimeout(r, 25))
    expect(JSON.parse(acp.stdout().split("\n")[0]!).result.agentInfo.name).toBe("dsh")
    acp.child.stdin!.end()
    expect(await acp.exited).toEqual({ code: 0, signal: null })

    await settled(env.DSH_RESIDENT)
    // stdin open and never written: `run` with its prompt in argv does not wait for it.
    const run = start(["run", "--model", `scripted:${script}`, "hello"], env)
    expect(await run.exited).toEqual({ code: 0, signal: null })
    expect(run.stdout()).toBe("result: \n")
  })

  it("SIGTERM to the launcher stops the run as it stops dsh in its own process", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: () => ({ hang: true }) })
    servers.push(server)
    const { env } = setup({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" })
    await warmUp(env)
    const args = ["run", "--model", "openai:any", "--output-format", "json", "wait"]
    const ended = async (env: Record<string, string>) => {
      const requests = server.requests.length
      const run = start(args, env, "")
      for (let i = 0; i < 800 && server.requests.length === requests; i++) await new Promise((r) => setTimeout(r, 25))
      run.child.kill("SIGTERM")
      const exit = await run.exited
      return { exit, summary: JSON.parse(run.stdout()) as { status: string }, stderr: run.stderr() }
    }
    const warm = await ended(env)
    const own = await ended({ ...env, DSH_RESIDENT: "0" })
    expect(warm.exit).toEqual(own.exit)
    expect(warm.summary.status).toBe("cancelled")
    expect(own.summary.status).toBe("cancelled")
    expect(warm.stderr).toBe(own.stderr)
  })

  it("kill -9 of the launcher: the spare and every process it started go with it", async () => {
    const { env, home } = setup()
    await warmUp(env)
    const pids = join(home, "pids")
    // A duration no other process uses, so the check below finds only ours.
    const sleeper = `sleep ${(300 + Math.random()).toFixed(6)}`
    const run = start(["run", "--model", `scripted:${script}`, "--yolo", `sh echo self=$$ parent=$PPID >> ${pids}; ${sleeper}`], env, "")
    const { bash, dsh } = pidsOf(await untilFile(pids))
    expect(dsh).not.toBe(run.child.pid)
    run.child.kill("SIGKILL")
    expect((await run.exited).signal).toBe("SIGKILL")
    expect(await untilGone([dsh, bash])).toEqual([])
  })

  it("a resident killed mid-start: the start ends as a failed run with exit 1 and says so; it is not run a second time", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: () => ({ hang: true }) })
    servers.push(server)
    const { env } = setup({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" })
    const resident = await warmUp(env)
    const run = start(["run", "--model", "openai:any", "wait"], env, "")
    for (let i = 0; i < 800 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25))
    process.kill(resident.pid, "SIGKILL")
    expect(await run.exited).toEqual({ code: 1, signal: null })
    expect(run.stderr()).toBe("dsh: the resident dsh process went away\n")
    expect(server.requests).toHaveLength(1)
    // What the killed resident could not remove.
    for (const f of readdirSync(dir)) if (f.startsWith(`${basename(resident.socket, ".sock")}.`)) rmSync(join(dir, f), { force: true })
  })

  it.skipIf(!unshares)("a start from another network namespace is not served by a resident made outside it", async () => {
    const { env } = setup()
    await warmUp(env)
    const args = ["run", "--model", `scripted:${script}`, "--yolo", "sh echo self=$$ parent=$PPID"]
    const child = spawn("unshare", ["-rn", DSH, ...args], { cwd: tempDir("dsh-cwd-"), env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    launched.push(child)
    let stdout = ""
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
    expect(await new Promise((r) => child.on("close", r))).toBe(0)
    // Bash's parent is the process spawned (unshare execs dsh): it ran in its own process.
    expect(pidsOf(stdout).dsh).toBe(child.pid)
  })

  it("quits when idle, and leaves no socket behind", async () => {
    const { env } = setup({ DSH_RESIDENT_IDLE_SECONDS: "1" })
    const status = await warmUp(env)
    expect(await untilGone([status.pid])).toEqual([])
    expect((await Status.residentsIn(dir)).find((r) => r.name === env.DSH_RESIDENT)).toBeUndefined()
    const key = basename(status.socket, ".sock")
    expect(readdirSync(dir).filter((f) => f.startsWith(`${key}.`))).toEqual([])
  })
})
