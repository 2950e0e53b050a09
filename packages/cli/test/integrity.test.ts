import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "./support.ts"

/**
 * The fault matrix of session integrity: real `dsh` processes, real signals, the file store and
 * a fake model server. Every wait is on something observable (a request arriving, a file, a
 * pid), never a fixed sleep.
 */

interface Msg {
  readonly role: string
  readonly content: string | null
}
const users = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages.filter((m) => m.role === "user").map((m) => m.content ?? "")
const firstUser = (r: FakeOpenAIServer.FakeRequest) => users(r)[0] ?? ""
const assistants = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages.filter((m) => m.role === "assistant").length
const call = (name: string, args: unknown): FakeOpenAIServer.FakeReply => ({ toolCalls: [{ name, arguments: args }] })
const bg = (prompt: string, agent = "explore"): FakeOpenAIServer.FakeReply => call("subagent", { description: prompt.slice(0, 20), agent, prompt, background: true })

const servers: Array<FakeOpenAIServer.FakeServer> = []
const launched: Array<ChildProcess> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  for (const s of servers.splice(0)) await s.close()
})

const model = async (respond: (r: FakeOpenAIServer.FakeRequest) => FakeOpenAIServer.FakeReply) => {
  const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
  servers.push(server)
  return server
}

/** Resolves once `predicate` holds, checking whenever `poll` says something changed (bounded). */
const until = async <A>(what: string, probe: () => A | undefined, attempts = 600): Promise<A> => {
  for (let i = 0; i < attempts; i++) {
    const value = probe()
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const envOf = (home: string, server: FakeOpenAIServer.FakeServer) => ({ DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" })

const start = (args: ReadonlyArray<string>, env: Record<string, string>, cwd = tempDir("dsh-cwd-")) => {
  const child = spawn(DSH, [...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] })
  launched.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

const sessionDir = (home: string) => until("a session directory", () => {
  const ids = existsSync(join(home, "sessions")) ? readdirSync(join(home, "sessions")) : []
  return ids[0] === undefined ? undefined : { id: ids[0], dir: join(home, "sessions", ids[0]) }
})
const json = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>
const wireTypes = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { type: string }).type)
const descriptors = (dir: string) => Object.values(json(join(dir, "state.json")).subagents as Record<string, { handle: string; status: string }>)
const tasks = (dir: string) =>
  existsSync(join(dir, "tasks")) ? readdirSync(join(dir, "tasks")).filter((f) => f.endsWith(".json") && !f.startsWith(".")).map((f) => json(join(dir, "tasks", f))) : []
const list = async (home: string, id: string) =>
  (JSON.parse((await runDsh(["subagents", "list", "--session", id, "--json"], { env: { DSH_HOME: home } })).stdout) as { subagents: Array<{ name: string; status: string }> }).subagents

describe("one owner per session", { timeout: 90_000 }, () => {
  it("a second run on a session being run exits 2 naming the owner; the history does not fork", async () => {
    const server = await model((r) => (users(r).includes("FIRST") ? { hang: true } : { text: "second" }))
    const home = makeHome()
    const first = start(["run", "--allow", "subagent", "--model", "openai:any", "FIRST"], envOf(home, server))
    const { id, dir } = await sessionDir(home)
    await until("the first run's model call", () => (server.requests.length > 0 ? true : undefined))
    const second = await runDsh(["run", "--allow", "subagent", "--session", id, "SECOND"], { env: envOf(home, server) })
    expect(second.code).toBe(2)
    expect(second.stderr.trim().split("\n")).toHaveLength(1)
    // The owner is the process running the session: the one spawned, or the resident's spare
    // that took its start. Either way, stopping that pid stops the first run.
    const owner = Number(/pid (\d+)/.exec(second.stderr)?.[1])
    expect(ProcessChecks.isGone(owner)).toBe(false)
    expect(wireTypes(join(dir, "wire.jsonl")).filter((t) => t === "turn-start")).toHaveLength(1)
    process.kill(owner, "SIGTERM")
    expect(await first.exited).not.toBeNull()
  })

  it("after kill -9, readers say lost at once; the prompt and the subagent call are already on disk", async () => {
    const server = await model((r) => (firstUser(r).startsWith("CHILD") ? { hang: true } : assistants(r) === 0 ? bg("CHILD hangs") : { hang: true }))
    const home = makeHome()
    const run = start(["run", "--allow", "subagent", "--model", "openai:any", "PARENT"], envOf(home, server))
    const { id, dir } = await sessionDir(home)
    await until("the child's model call", () => (server.requests.some((r) => firstUser(r).startsWith("CHILD")) ? true : undefined))
    run.child.kill("SIGKILL")
    await run.exited
    // Write-through: the user's prompt and the delegation are in wire.jsonl, not lost with the buffer.
    const wire = readFileSync(join(dir, "wire.jsonl"), "utf8")
    expect(wire).toContain("\"content\":\"PARENT\"")
    expect(wire).toContain("\"name\":\"subagent\"")
    expect((await list(home, id)).map((c) => c.status)).toEqual(["lost"])
    const sessions = JSON.parse((await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })).stdout) as { sessions: Array<{ id: string; status: string }> }
    expect(sessions.sessions.find((s) => s.id === id)?.status).toBe("lost")
  })

  it("a message to a child running in another process reaches that child; two at once never start a second Activation", async () => {
    // The child's model call never returns: it is running while the messages arrive.
    const server = await model((r) => (firstUser(r).startsWith("CHILD") ? { hang: true } : assistants(r) === 0 ? bg("CHILD works") : { hang: true }))
    const home = makeHome()
    const run = start(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], envOf(home, server))
    const { id, dir } = await sessionDir(home)
    await until("the child's first model call", () => (server.requests.some((r) => firstUser(r).startsWith("CHILD")) ? true : undefined))
    const [a, b] = await Promise.all([
      runDsh(["subagents", "send", "explore-1", "first note", "--session", id], { env: envOf(home, server) }),
      runDsh(["subagents", "send", "explore-1", "second note", "--session", id], { env: envOf(home, server) })
    ])
    expect([a.code, b.code]).toEqual([0, 0])
    expect(a.stdout).toContain("gets the message at its next step")
    expect(b.stdout).toContain("gets the message at its next step")
    // One Activation: the child's transcript has one turn start for its task, however many messages came.
    run.child.kill("SIGTERM")
    await run.exited
    const child = wireTypes(join(dir, "agents", "explore-1", "wire.jsonl"))
    expect(child.filter((t) => t === "turn-start")).toHaveLength(1)
  })
})

describe("signals", { timeout: 90_000 }, () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal}: one JSON object says cancelled; descriptor, task record and meta agree; no child process is left`, async () => {
      const server = await model((r) => {
        if (firstUser(r).startsWith("CHILD")) return { hang: true }
        return assistants(r) === 0
          ? { toolCalls: [
            { name: "subagent", arguments: { description: "in process", agent: "explore", prompt: "CHILD in process", background: true } },
            { name: "subagent", arguments: { description: "over acp", agent: "acp:dsh", prompt: "CHILD over acp", background: true } },
            { name: "subagent", arguments: { description: "over sdk", agent: "sdk:dsh", prompt: "CHILD over sdk", background: true } }
          ] }
          : { hang: true }
      })
      const home = makeHome()
      const run = start(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], envOf(home, server))
      const { dir } = await sessionDir(home)
      // All three children are running (each has called the model).
      await until("three children at work", () => (server.requests.filter((r) => firstUser(r).startsWith("CHILD")).length >= 3 ? true : undefined))
      const pids = await until("the out-of-process children's pids", () => {
        const metas = ["acp-dsh-1", "sdk-dsh-1"].map((h) => join(dir, "agents", h, "meta.json"))
        const found = metas.filter(existsSync).map((m) => json(m).pid).filter((p): p is number => typeof p === "number")
        return found.length === 2 ? found : undefined
      })
      run.child.kill(signal)
      const code = await run.exited
      expect(code).toBe(1)
      const out = run.stdout().trim().split("\n")
      expect(out).toHaveLength(1)
      expect(JSON.parse(out[0]!)).toMatchObject({ status: "cancelled" })
      expect(descriptors(dir).map((d) => d.status)).toEqual(["cancelled", "cancelled", "cancelled"])
      expect(tasks(dir).map((t) => t.status)).toEqual(["cancelled", "cancelled", "cancelled"])
      for (const handle of ["explore-1", "acp-dsh-1", "sdk-dsh-1"]) expect(json(join(dir, "agents", handle, "meta.json")).status).toBe("cancelled")
      expect(json(join(dir, "state.json")).status).toBe("cancelled")
      await until("the child processes to be gone", () => (pids.every(ProcessChecks.isGone) ? true : undefined))
    })
  }

  it("a reader that closes the pipe early ends dsh quietly", async () => {
    const home = makeHome()
    for (let i = 0; i < 3; i++) await runDsh(["run", `hello ${i}`], { env: { DSH_HOME: home } })
    const piped = spawn("bash", ["-c", `"${DSH}" sessions list | head -1`], { env: { PATH: process.env.PATH ?? "", DSH_HOME: home } })
    let stderr = ""
    piped.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    await new Promise((r) => piped.on("close", r))
    expect(stderr).not.toMatch(/EPIPE|at .*\(/)
  })
})

describe("bad records and settings", { timeout: 90_000 }, () => {
  it("a corrupt state.json is listed with its error; --session and --continue exit 1 naming the file", async () => {
    const home = makeHome()
    const cwd = tempDir("dsh-cwd-")
    await runDsh(["run", "hello"], { env: { DSH_HOME: home }, cwd })
    const { id, dir } = await sessionDir(home)
    writeFileSync(join(dir, "state.json"), "{ not json")
    const listed = JSON.parse((await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })).stdout) as { sessions: Array<{ id: string; error?: string }> }
    expect(listed.sessions.find((s) => s.id === id)?.error).toContain(join(dir, "state.json"))
    for (const args of [["--session", id], ["--continue"]]) {
      const r = await runDsh(["run", ...args, "again"], { env: { DSH_HOME: home }, cwd })
      expect(r.code).toBe(1)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toContain("state.json")
    }
  })

  it("a child whose transcript is gone: log exits 1 with one line, send refuses", async () => {
    const server = await model((r) => (firstUser(r).startsWith("CHILD") ? { text: "child done" } : assistants(r) === 0 ? call("subagent", { description: "c", agent: "explore", prompt: "CHILD task" }) : { text: "ok" }))
    const home = makeHome()
    const done = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { env: envOf(home, server) })
    const { sessionId } = JSON.parse(done.stdout) as { sessionId: string }
    rmSync(join(home, "sessions", sessionId, "agents", "explore-1"), { recursive: true })
    const log = await runDsh(["subagents", "log", "explore-1", "--session", sessionId], { env: { DSH_HOME: home } })
    expect(log.code).toBe(1)
    expect(log.stderr.trim().split("\n")).toHaveLength(1)
    expect(log.stderr).toContain("transcript is missing")
    const send = await runDsh(["subagents", "send", "explore-1", "more", "--session", sessionId], { env: envOf(home, server) })
    expect(send.code).toBe(1)
    expect(send.stderr).toContain("transcript is missing")
  })

  it("limits out of range are exit 2 naming the key and the range; timeout_seconds = 0 means no timeout", async () => {
    for (const [setting, key] of [["timeout_seconds = -5", "timeout_seconds"], ["max_depth = 9", "max_depth"], ["max_concurrent = 0", "max_concurrent"]] as const) {
      const r = await runDsh(["run", "hello"], { env: { DSH_HOME: makeHome(`[limits]\n${setting}\n`) } })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`[limits] ${key}`)
      expect(r.stderr).toMatch(/from \d+ to \d+/)
    }
    const server = await model((r) => (firstUser(r).startsWith("CHILD") ? { text: "slow but done", delayMs: 1500 } : assistants(r) === 0 ? call("subagent", { description: "c", agent: "explore", prompt: "CHILD slow" }) : { text: "ok" }))
    const r = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { env: { ...envOf(makeHome("[limits]\ntimeout_seconds = 0\n"), server) } })
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "completed", subagents: [{ name: "explore-1", status: "completed" }] })
  })

  it("an untrusted project agent file named fork is skipped with a reason, not fatal", async () => {
    const home = makeHome()
    const cwd = tempDir("dsh-project-")
    const agents = join(cwd, ".agents", "agents")
    await import("node:fs/promises").then((fs) => fs.mkdir(agents, { recursive: true }))
    writeFileSync(join(agents, "fork.md"), "---\ndescription: not the fork type\n---\nbody\n")
    const run = await runDsh(["run", "hello"], { env: { DSH_HOME: home }, cwd })
    expect(run.code).toBe(0)
    const listed = JSON.parse((await runDsh(["agents", "list", "--json"], { env: { DSH_HOME: home }, cwd })).stdout) as { skipped: Array<{ path: string; reason: string }> }
    expect(listed.skipped.find((s) => s.path.endsWith("fork.md"))?.reason).toContain("reserved")
  })
})

describe("background work", { timeout: 90_000 }, () => {
  it("a child waits for its own background grandchild, hears its outcome, then reports; every record is delivered", async () => {
    const server = await model((r) => {
      const first = firstUser(r)
      if (first.startsWith("GRANDCHILD")) return { text: "grandchild result", delayMs: 300 }
      if (first.startsWith("CHILD")) {
        const heard = users(r).find((u) => u.startsWith("[subagent announcement]"))
        if (heard !== undefined) return { text: `child reports: ${heard.includes("grandchild result") ? "heard the grandchild" : "?"}` }
        return assistants(r) === 0 ? bg("GRANDCHILD work", "explore") : { text: "child turn ended, grandchild still running" }
      }
      return assistants(r) === 0 ? call("subagent", { description: "c", agent: "coder", prompt: "CHILD delegate" }) : { text: "main done" }
    })
    const home = makeHome("[limits]\nmax_depth = 2\n")
    // `coder` may delegate (explore may not), and below the depth limit of 2 it gets the tool.
    const r = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { env: envOf(home, server) })
    const out = JSON.parse(r.stdout) as { status: string; sessionId: string; subagents: Array<{ name: string; status: string }> }
    expect(out.status).toBe("completed")
    const dir = join(home, "sessions", out.sessionId)
    const childResult = readFileSync(join(dir, "wire.jsonl"), "utf8")
    expect(childResult).toContain("child reports: heard the grandchild")
    expect(descriptors(dir).every((d) => d.status === "completed")).toBe(true)
    expect(tasks(dir).map((t) => [t.status, t.delivered])).toEqual([["completed", true]])
  })

  it("kill -9 with background children, then --continue: the finished outcome is announced once, the other is lost", async () => {
    const server = await model((r) => {
      const first = firstUser(r)
      if (first === "CHILD quick") return { text: "quick result" }
      if (first.startsWith("CHILD")) return { hang: true }
      // The main agent: what it was asked last (announcements aside), and what it has heard.
      const all = users(r)
      const last = all.findLastIndex((u) => !u.startsWith("[subagent announcement]"))
      const asked = all[last]
      const heard = all.slice(last + 1)
      if (asked === "PARENT") return assistants(r) === 0 ? { toolCalls: [...(bg("CHILD quick").toolCalls ?? []), ...(bg("CHILD slow").toolCalls ?? [])] } : { hang: true }
      return { text: `seen: ${heard.map((u) => (u.includes("quick result") ? "quick" : u.includes("ended as lost") ? "lost" : "?")).sort().join(",")}` }
    })
    const home = makeHome()
    const cwd = tempDir("dsh-cwd-")
    const run = start(["run", "--allow", "subagent", "--model", "openai:any", "PARENT"], envOf(home, server), cwd)
    const { dir } = await sessionDir(home)
    await until("the quick child's outcome on disk", () => (tasks(dir).some((t) => t.status === "completed") ? true : undefined))
    run.child.kill("SIGKILL")
    await run.exited
    const again = await runDsh(["run", "--allow", "subagent", "--continue", "--model", "openai:any", "--output-format", "json", "AFTER"], { env: envOf(home, server), cwd })
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "completed", result: "seen: lost,quick" })
    const once = await runDsh(["run", "--allow", "subagent", "--continue", "--model", "openai:any", "--output-format", "json", "ONCE MORE"], { env: envOf(home, server), cwd })
    expect(JSON.parse(once.stdout)).toMatchObject({ result: "seen: " })
  })
})
