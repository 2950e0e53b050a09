import { Place, Protocol, Status } from "@dsh/cli-resident"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, tempDir } from "../support.ts"

// The resident is opt-in, and serves a start only to a caller confined as its spare is. Every
// test has a resident directory of its own (DSH_RESIDENT_DIR), so it sees only its residents.
const works = process.getuid !== undefined && process.platform === "linux"
if (!works) console.log("skipping the resident fault matrix: it needs Linux")
const has = (tool: string, args: ReadonlyArray<string>) => {
  const ok = works && spawnSync(tool, [...args, "true"]).status === 0
  if (works && !ok) console.log(`skipping the resident ${tool} test: ${tool} does not work here`)
  return ok
}
const nice = has("nice", ["-n", "7"])
const prlimit = has("prlimit", ["--nofile=321:321"])
const setpriv = has("setpriv", ["--no-new-privs"])

const script = join(tempDir("dsh-resident-script-"), "script.json")
writeFileSync(script, JSON.stringify({
  rules: [
    { when: { lastUser: "^sh (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    { reply: { text: "result: {{lastTool}}" } }
  ]
}))

const launched: Array<ChildProcess> = []
const dirs: Array<string> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  for (const dir of dirs.splice(0)) for (const r of await Status.residentsIn(dir)) if (!ProcessChecks.isGone(r.pid)) process.kill(r.pid, "SIGTERM")
})

interface Started {
  readonly child: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  readonly stdout: () => string
  readonly stderr: () => string
}

/** Runs `prefix… ./dsh args` with a clean environment plus `env`; stdin is empty. */
const start = (args: ReadonlyArray<string>, env: Record<string, string>, prefix: ReadonlyArray<string> = []): Started => {
  const [command, ...rest] = [...prefix, DSH, ...args]
  const child = spawn(command!, rest, { cwd: tempDir("dsh-cwd-"), env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] })
  launched.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
  child.stdin!.end()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/** A home with Bash unconfined (the probes read the real process), and a resident directory. */
const setup = (config = "", resident: string | null = "1") => {
  const home = makeHome(`[sandbox]\nmode = "off"\n${config}`)
  const dir = join(tempDir("dsh-rdir-"), "r")
  dirs.push(dir)
  const env: Record<string, string> = { DSH_HOME: home, HOME: home, DSH_RESIDENT_DIR: dir }
  if (resident !== null) env.DSH_RESIDENT = resident
  return { home, dir, env }
}

/** Polls the resident's own status (its readiness signal) until it has a spare loaded and is idle. */
const settled = async (dir: string): Promise<Protocol.ResidentStatus & { readonly socket: string }> => {
  for (let i = 0; i < 400; i++) {
    const [mine] = await Status.residentsIn(dir)
    if (mine !== undefined) {
      const status = await Status.residentSettled(mine.socket, 20_000)
      if (status?.ready === true && status.running === 0) return { ...status, socket: mine.socket }
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`no resident settled in ${dir}`)
}

/** The first start starts the resident (and runs in its own process); then it settles. */
const warmUp = async (env: Record<string, string>, dir: string) => {
  expect((await start(["agents", "list"], env).exited).code).toBe(0)
  return settled(dir)
}

/** Runs `sh <command>` through the Bash tool; `own` says whether it ran in the process spawned. */
const bash = async (command: string, env: Record<string, string>, prefix: ReadonlyArray<string> = []) => {
  const run = start(["run", "--model", `scripted:${script}`, "--yolo", `sh ${command}; echo parent=$PPID`], env, prefix)
  expect(await run.exited).toEqual({ code: 0, signal: null })
  const parent = Number(/parent=(\d+)/.exec(run.stdout())?.[1])
  return { out: run.stdout(), own: parent === run.child.pid }
}

const sockets = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sock")) : [])

describe.skipIf(!works)("the resident dsh, opt-in and confined", { timeout: 90_000 }, () => {
  it("is off by default: a run leaves no resident and no socket", async () => {
    const { env, dir } = setup("", null)
    expect((await bash("true", env)).own).toBe(true)
    expect((await bash("true", env)).own).toBe(true)
    expect(sockets(dir)).toEqual([])
    const doctor = start(["doctor"], env)
    expect((await doctor.exited).code).toBe(0)
    expect(doctor.stdout()).toMatch(/^resident {4}off \(the default/m)
  })

  it("DSH_RESIDENT=1 turns it on: the next start is served by a spare", async () => {
    const { env, dir } = setup()
    await warmUp(env, dir)
    expect((await bash("true", env)).own).toBe(false)
  })

  it("[cli] resident = true turns it on; DSH_RESIDENT=0 still turns it off", async () => {
    const { env, dir } = setup("[cli]\nresident = true\n", null)
    const doctor = start(["doctor"], { ...env, DSH_RESIDENT: "0" })
    expect((await doctor.exited).code).toBe(0)
    expect(doctor.stdout()).toMatch(/^resident {4}off: DSH_RESIDENT=0$/m)
    await warmUp(env, dir)
    expect((await bash("true", env)).own).toBe(false)
    expect((await bash("true", { ...env, DSH_RESIDENT: "0" })).own).toBe(true)
  })

  it.skipIf(!nice)("nice -n 7: Bash runs at nice 7, in the caller's own process", async () => {
    const { env, dir } = setup()
    await warmUp(env, dir)
    const { out, own } = await bash("nice", env, ["nice", "-n", "7"])
    expect(out).toContain("result: 7\n")
    expect(own).toBe(true)
  })

  it.skipIf(!prlimit)("prlimit --nofile=321:321: Bash has 321 open files at most, in the caller's own process", async () => {
    const { env, dir } = setup()
    await warmUp(env, dir)
    const { out, own } = await bash("ulimit -n", env, ["prlimit", "--nofile=321:321"])
    expect(out).toContain("result: 321\n")
    expect(own).toBe(true)
  })

  it.skipIf(!setpriv)("setpriv --no-new-privs: served in the caller's own process", async () => {
    const { env, dir } = setup()
    await warmUp(env, dir)
    const { out, own } = await bash("grep NoNewPrivs /proc/self/status", env, ["setpriv", "--no-new-privs"])
    expect(out).toMatch(/NoNewPrivs:\s+1/)
    expect(own).toBe(true)
    // The resident is still there for callers confined as it is.
    expect((await bash("true", env)).own).toBe(false)
  })

  it("dsh resident status and stop", async () => {
    const { env, dir } = setup()
    const none = start(["resident", "status"], { ...env, DSH_RESIDENT: "0" })
    expect(await none.exited).toEqual({ code: 0, signal: null })
    expect(none.stdout()).toBe("no resident running\n")
    const { pid } = await warmUp(env, dir)
    const status = start(["resident", "status", "--json"], { ...env, DSH_RESIDENT: "0" })
    expect((await status.exited).code).toBe(0)
    const [r] = JSON.parse(status.stdout()).residents
    expect(r).toMatchObject({ pid, served: 0, ready: true, running: 0 })
    expect(r.build).toMatch(/packages\/cli\/dist\/$/)
    expect(r.rssBytes).toBeGreaterThan(0)
    expect(r.idleSeconds).toBeGreaterThanOrEqual(0)
    const text = start(["resident", "status"], { ...env, DSH_RESIDENT: "0" })
    expect((await text.exited).code).toBe(0)
    expect(text.stdout()).toMatch(new RegExp(`^resident ${pid} .*idle \\d+s .*memory [\\d.]+ MB .*starts served 0`))
    const stop = start(["resident", "stop"], { ...env, DSH_RESIDENT: "0" })
    expect(await stop.exited).toEqual({ code: 0, signal: null })
    expect(stop.stdout()).toBe("stopped 1 resident\n")
    for (let i = 0; i < 400 && !ProcessChecks.isGone(pid); i++) await new Promise((r) => setTimeout(r, 25))
    expect(ProcessChecks.isGone(pid)).toBe(true)
    const bad = start(["resident", "restart"], env)
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr().trim().split("\n")).toHaveLength(1)
  })

  it("a stale socket is ignored: the start runs in its own process, the next resident removes it", async () => {
    const { env, dir } = setup()
    const { pid, socket } = await warmUp(env, dir)
    process.kill(pid, "SIGKILL")
    for (let i = 0; i < 400 && !ProcessChecks.isGone(pid); i++) await new Promise((r) => setTimeout(r, 25))
    expect(existsSync(socket)).toBe(true)
    expect((await bash("true", env)).own).toBe(true)
    const next = await settled(dir)
    expect(next.pid).not.toBe(pid)
    expect(readFileSync(socket.replace(/\.sock$/, ".log"), "utf8")).toContain("removed a stale socket")
  })

  it("a resident directory open to others, or another user's, is ignored with one warning in the dsh log", async () => {
    const { env, dir, home } = setup()
    mkdirSync(dir, { mode: 0o700 })
    chmodSync(dir, 0o755)
    expect((await bash("true", env)).own).toBe(true)
    expect(sockets(dir)).toEqual([])
    const warnings = () => readFileSync(join(home, "logs", "dsh.log"), "utf8").split("\n").filter((l) => l.includes("resident:"))
    expect(warnings()).toHaveLength(1)
    expect(warnings()[0]).toContain("is open to others (mode 755)")
    if (process.getuid!() === 0) {
      chmodSync(dir, 0o700)
      chownSync(dir, 65534, 65534)
      expect((await bash("true", env)).own).toBe(true)
      expect(warnings()[1]).toContain("belongs to another user (uid 65534)")
    }
  })

  it("kill -9 of the resident mid-start: the JSON summary still prints, failed, and the session is lost", async () => {
    const { env, dir, home } = setup()
    const resident = await warmUp(env, dir)
    const marker = join(home, "started")
    const sleeper = `sleep ${(300 + Math.random()).toFixed(6)}`
    const run = start(["run", "--model", `scripted:${script}`, "--yolo", "--output-format", "json", `sh echo >> ${marker}; ${sleeper}`], env)
    for (let i = 0; i < 800 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 25))
    process.kill(resident.pid, "SIGKILL")
    expect(await run.exited).toEqual({ code: 1, signal: null })
    const summary = JSON.parse(run.stdout())
    expect(summary).toMatchObject({ status: "failed", error: "the resident dsh process went away" })
    expect(run.stderr()).toBe("dsh: the resident dsh process went away\n")
    const list = start(["sessions", "list", "--json"], { ...env, DSH_RESIDENT: "0" })
    expect((await list.exited).code).toBe(0)
    const session = JSON.parse(list.stdout()).sessions.find((s: { id: string }) => s.id === summary.sessionId)
    expect(session.status).toBe("lost")
  })

  it("a line from the resident past the size bound, or not JSON, ends the connection: the start runs in its own process", async () => {
    for (const answer of [Buffer.alloc(Protocol.MAX_LINE_BYTES + 1024, "x"), Buffer.from("not json\n")]) {
      const { env, dir } = setup()
      mkdirSync(dir, { mode: 0o700 })
      // A listener where the launcher looks for its resident (the key of this build, name "", no Node flags).
      const key = Place.residentKey(resolve(DSH, "../packages/cli/dist/main.js"), env, "", [])
      let connections = 0
      const fake = createServer((socket) => {
        connections++
        socket.on("error", () => undefined).end(answer)
      })
      await new Promise<void>((r) => fake.listen(join(dir, `${key}.sock`), r))
      try {
        expect((await bash("true", env)).own).toBe(true)
        expect(connections).toBe(1)
      } finally {
        fake.close()
      }
    }
  })
})
