import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { DSH, FAST_RETRIES, makeHome, runDsh, tempDir } from "./support.ts"

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const isChild = (r: FakeOpenAIServer.FakeRequest) => firstUser(r).startsWith("CHILD")

const delegate = (...children: ReadonlyArray<{ prompt: string; agent?: string; timeoutSeconds?: number }>): FakeOpenAIServer.FakeReply => ({
  toolCalls: children.map((c, i) => ({
    name: "subagent",
    arguments: { description: `task ${i + 1}`, prompt: c.prompt, agent: c.agent ?? "explore", ...(c.timeoutSeconds ? { timeoutSeconds: c.timeoutSeconds } : {}) }
  }))
})

const project = () => {
  const dir = tempDir("dsh-project-")
  writeFileSync(join(dir, "notes.txt"), "the secret word is PAPAYA\n")
  return dir
}

const listChildren = async (home: string, sessionId: string) => {
  const r = await runDsh(["subagents", "list", "--session", sessionId, "--json"], { env: { DSH_HOME: home } })
  expect(r.code).toBe(0)
  return (JSON.parse(r.stdout) as { subagents: Array<{ name: string; agent: string; provider: string; status: string; parent: string; depth: number }> }).subagents
}

describe("delegation to in-process children", () => {
  it("a child sees only its own prompt, runs a real tool, and only its result flows back", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (isChild(r)) {
          return step(r) === 0
            ? { toolCalls: [{ name: "Read", arguments: { path: "notes.txt" } }], usage: { input: 30, output: 5 } }
            : { text: "The word is PAPAYA.", usage: { input: 40, output: 5 } }
        }
        return step(r) === 0 ? delegate({ prompt: "CHILD: read notes.txt and report the secret word" }) : { text: "My child found PAPAYA." }
      }
    })
    try {
      const home = makeHome()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "PARENT: find the secret word, using a subagent"], { cwd: project(), env })
      expect(r.stderr).toBe("")
      const out = JSON.parse(r.stdout) as { sessionId: string; result: string; subagents: unknown }
      expect(out.result).toBe("My child found PAPAYA.")
      expect(out.subagents).toEqual([{ name: "explore-1", agent: "explore", provider: "spawn", status: "completed" }])
      const childRequests = server.requests.filter(isChild)
      expect(childRequests).toHaveLength(2)
      for (const req of childRequests) {
        const text = JSON.stringify(body(req).messages)
        expect(text).not.toContain("PARENT:")
        expect(body(req).messages[0]?.role).toBe("system")
        expect(body(req).messages[1]).toMatchObject({ role: "user", content: "CHILD: read notes.txt and report the secret word" })
      }
      // The child's tool really ran, and its output stayed in the child's context.
      expect(JSON.stringify(body(childRequests[1]!).messages)).toContain("the secret word is PAPAYA")
      const parentFinal = server.requests.filter((q) => !isChild(q))[1]!
      expect(JSON.stringify(body(parentFinal).messages)).not.toContain("the secret word is PAPAYA\\n")
      expect(JSON.stringify(body(parentFinal).messages)).toContain("The word is PAPAYA.")
      // The child's transcript is on disk and the child is listed.
      const transcript = join(home, "sessions", out.sessionId, "agents", "explore-1", "wire.jsonl")
      expect(readFileSync(transcript, "utf8")).toContain("\"type\":\"tool-result\"")
      const children = await listChildren(home, out.sessionId)
      expect(children).toMatchObject([{ name: "explore-1", agent: "explore", provider: "spawn", status: "completed", parent: "main", depth: 1 }])
      const info = await runDsh(["subagents", "info", "explore-1", "--session", out.sessionId, "--json"], { env: { DSH_HOME: home } })
      expect(JSON.parse(info.stdout)).toMatchObject({ handle: "explore-1", transcript })
    } finally {
      await server.close()
    }
  })

  const fanOut = async (config: string | undefined) => {
    const arrivals: Array<number> = []
    const DELAY = 400
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (isChild(r)) {
          arrivals.push(Date.now())
          return { text: `done ${firstUser(r)}`, delayMs: DELAY }
        }
        return step(r) === 0 ? delegate({ prompt: "CHILD 1" }, { prompt: "CHILD 2" }, { prompt: "CHILD 3" }) : { text: "all done" }
      }
    })
    try {
      const home = makeHome(config)
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "fan out"], {
        cwd: project(),
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "completed", result: "all done" })
      return { arrivals: arrivals.sort((a, b) => a - b), DELAY }
    } finally {
      await server.close()
    }
  }

  it("parallel children overlap; with the lane at 1 they run one after another", async () => {
    // Causal, not timed: a child's request arriving before another's reply could have finished proves overlap.
    const parallel = await fanOut(undefined)
    expect(parallel.arrivals).toHaveLength(3)
    expect(parallel.arrivals[2]! - parallel.arrivals[0]!).toBeLessThan(parallel.DELAY)
    const serial = await fanOut("[limits]\nmax_concurrent = 1\n")
    expect(serial.arrivals[1]! - serial.arrivals[0]!).toBeGreaterThanOrEqual(serial.DELAY)
    expect(serial.arrivals[2]! - serial.arrivals[1]!).toBeGreaterThanOrEqual(serial.DELAY)
  })

  it("a child past its timeout ends as timeout, and the parent continues", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => isChild(r) ? { hang: true } : step(r) === 0 ? delegate({ prompt: "CHILD: take forever", timeoutSeconds: 1 }) : { text: "moved on" }
    })
    try {
      const home = makeHome()
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "stream-json", "try a slow child"], {
        cwd: project(),
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.code).toBe(0)
      const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; status?: string; durationMs?: number; result?: string })
      const end = events.find((e) => e.type === "subagent-end")
      expect(end?.status).toBe("timeout")
      expect(end?.durationMs).toBeLessThan(2000)
      expect(events.at(-1)).toMatchObject({ type: "result", status: "completed", result: "moved on" })
      await server.waitForAborts(1)
    } finally {
      await server.close()
    }
  })

  it("one failing child never aborts its siblings", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (isChild(r)) return firstUser(r) === "CHILD bad" ? { status: 500 } : { text: "good result" }
        return step(r) === 0 ? delegate({ prompt: "CHILD bad" }, { prompt: "CHILD good" }) : { text: "finished anyway" }
      }
    })
    try {
      const home = makeHome(FAST_RETRIES)
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "two children"], {
        cwd: project(),
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      const out = JSON.parse(r.stdout) as { sessionId: string; status: string; subagents: Array<{ name: string; status: string }> }
      expect(out.status).toBe("completed")
      expect(out.subagents.map((s) => s.status).sort()).toEqual(["completed", "failed"])
    } finally {
      await server.close()
    }
  })

  it("stopping the parent cancels every running child and records it", async () => {
    let hanging = 0
    let bothHanging: () => void = () => {}
    const ready = new Promise<void>((resolve) => (bothHanging = resolve))
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (isChild(r)) {
          if (++hanging === 2) bothHanging()
          return { hang: true }
        }
        return delegate({ prompt: "CHILD a" }, { prompt: "CHILD b" })
      }
    })
    try {
      const home = makeHome()
      const child = spawn(DSH, ["run", "--model", "openai:any", "--output-format", "json", "never ends"], {
        cwd: project(),
        env: { PATH: process.env.PATH ?? "", DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      await ready
      child.kill("SIGTERM")
      expect(await exited).toBe(1)
      const sessions = (JSON.parse((await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })).stdout) as {
        sessions: Array<{ id: string; status: string }>
      }).sessions
      expect(sessions).toMatchObject([{ status: "cancelled" }])
      const children = await listChildren(home, sessions[0]!.id)
      expect(children.map((c) => c.status)).toEqual(["cancelled", "cancelled"])
      expect(existsSync(join(home, "sessions", sessions[0]!.id, "agents", "explore-1", "meta.json"))).toBe(true)
      await server.waitForAborts(2)
      // The run still answers, as one JSON object that says how it ended.
      expect(JSON.parse(stdout)).toMatchObject({ status: "cancelled", subagents: [{ status: "cancelled" }, { status: "cancelled" }] })
    } finally {
      await server.close()
    }
  })
})
