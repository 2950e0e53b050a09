import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { DSH, FAST_RETRIES, makeHome, runDsh, tempDir } from "./support.ts"

interface Msg {
  readonly role: string
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const msgs = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages
const users = (r: FakeOpenAIServer.FakeRequest) => msgs(r).filter((m) => m.role === "user").map((m) => m.content ?? "")
const firstUser = (r: FakeOpenAIServer.FakeRequest) => users(r)[0] ?? ""
const lastUser = (r: FakeOpenAIServer.FakeRequest) => users(r).at(-1) ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => {
  const ms = msgs(r)
  let i = ms.length - 1
  while (i >= 0 && ms[i]?.role !== "user") i--
  return ms.slice(i + 1).filter((m) => m.role === "assistant").length
}
const call = (name: string, args: unknown): FakeOpenAIServer.FakeReply => ({ toolCalls: [{ name, arguments: args }] })
const project = () => {
  const dir = tempDir("dsh-project-")
  writeFileSync(join(dir, "notes.txt"), "the secret word is PAPAYA\n")
  return dir
}
const announcementsIn = (r: FakeOpenAIServer.FakeRequest) => users(r).filter((u) => u.startsWith("[subagent announcement]"))

const children = async (home: string, sessionId: string) =>
  (JSON.parse((await runDsh(["subagents", "list", "--session", sessionId, "--json"], { env: { DSH_HOME: home } })).stdout) as {
    subagents: Array<{ name: string; status: string; parent: string; depth: number }>
  }).subagents

const startDsh = (args: ReadonlyArray<string>, env: Record<string, string>, cwd: string) => {
  const child = spawn(DSH, [...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  return { child, exited, stdout: () => stdout }
}

/** Resolves when `count` requests matching `match` have arrived. */
const arrivals = (match: (r: FakeOpenAIServer.FakeRequest) => boolean, count: number) => {
  let seen = 0
  let done: () => void = () => {}
  const promise = new Promise<void>((resolve) => (done = resolve))
  return { note: (r: FakeOpenAIServer.FakeRequest) => (match(r) && ++seen === count ? done() : undefined), promise }
}

describe("fork", () => {
  it("the fork's first request holds the parent's completed turns and a closed delegation call, nothing in flight", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (users(r).some((u) => u.startsWith("[fork notice]"))) return { text: "fork done" }
        if (lastUser(r) === "PARENT turn one") return { text: "A1" }
        return step(r) === 0
          ? {
            toolCalls: [
              { name: "subagent", arguments: { description: "side task", agent: "fork", prompt: "CHILD fork: recap our talk" } },
              { name: "Read", arguments: { path: "notes.txt" } }
            ]
          }
          : { text: "ok" }
      }
    })
    try {
      const home = makeHome()
      const cwd = project()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "PARENT turn one"], { cwd, env })
      const second = await runDsh(["run", "--allow", "subagent", "--continue", "--output-format", "json", "PARENT turn two"], { cwd, env })
      expect(JSON.parse(second.stdout)).toMatchObject({ status: "completed", subagents: [{ name: "fork-1", agent: "fork", provider: "fork", status: "completed" }] })
      const forkRequest = server.requests.find((r) => users(r).some((u) => u.startsWith("[fork notice]")))!
      const parentRequest = server.requests.find((r) => lastUser(r) === "PARENT turn two")!
      const ms = msgs(forkRequest)
      expect(ms[0]).toEqual(msgs(parentRequest)[0]) // the parent's system prompt
      expect(ms.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "tool", "user", "user"])
      expect(ms.slice(1, 4).map((m) => m.content)).toEqual(["PARENT turn one", "A1", "PARENT turn two"])
      expect(ms[4]?.tool_calls?.map((c) => c.function.name)).toEqual(["subagent", "Read"])
      expect(ms[5]?.content).toContain("handed to a fork")
      expect(ms[8]?.content).toBe("CHILD fork: recap our talk")
      expect(JSON.stringify(ms)).not.toContain("PAPAYA") // the sibling Read was in flight: not copied
    } finally {
      await server.close()
    }
  })
})

describe("continuable children", () => {
  it("a child that reported is continued with send_message warm, then cold after a restart, with its context intact", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) {
          if (lastUser(r) === "CHILD remember the number 7") {
            return step(r) === 0 ? call("report", { result: "I will remember 7" }) : { text: "standing by" }
          }
          return { text: `you told me: ${users(r)[0]}` }
        }
        if (step(r) === 0) return call("subagent", { description: "remember", agent: "coder", prompt: "CHILD remember the number 7" })
        if (step(r) === 1) return call("send_message", { to: "coder-1", message: "CHILD which number?" })
        return { text: "done" }
      }
    })
    try {
      const home = makeHome()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: project(), env })
      const out = JSON.parse(run.stdout) as { sessionId: string; status: string }
      expect(out.status).toBe("completed")
      // The report became the child's result; the warm continuation saw the earlier exchange.
      const parentAfterSpawn = server.requests.find((r) => !firstUser(r).startsWith("CHILD") && step(r) === 1)!
      expect(JSON.stringify(msgs(parentAfterSpawn))).toContain("I will remember 7")
      const warm = server.requests.find((r) => lastUser(r) === "CHILD which number?")!
      expect(users(warm)).toEqual(["CHILD remember the number 7", "CHILD which number?"])
      // Cold: a new process continues the child from disk.
      const cold = await runDsh(["subagents", "send", "coder-1", "CHILD and now?", "--session", out.sessionId], { env })
      expect(cold.code).toBe(0)
      expect(cold.stdout.trim()).toBe("you told me: CHILD remember the number 7")
      const coldRequest = server.requests.at(-1)!
      expect(users(coldRequest)).toEqual(["CHILD remember the number 7", "CHILD which number?", "CHILD and now?"])
      expect((await children(home, out.sessionId)).map((c) => c.status)).toEqual(["completed"])
    } finally {
      await server.close()
    }
  })

  it("a failed child returns its handle, and continuing it works", async () => {
    let healthy = false
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) return healthy ? { text: "recovered" } : { status: 500 }
        return step(r) === 0 ? call("subagent", { description: "flaky", agent: "coder", prompt: "CHILD do it" }) : { text: "noted the failure" }
      }
    })
    try {
      const home = makeHome(FAST_RETRIES)
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: project(), env })
      const out = JSON.parse(run.stdout) as { sessionId: string; subagents: Array<{ name: string; status: string }> }
      expect(out.subagents).toEqual([expect.objectContaining({ name: "coder-1", status: "failed" })])
      const parentSaw = JSON.stringify(msgs(server.requests.at(-1)!))
      expect(parentSaw).toContain("[subagent coder-1 (coder) · failed")
      healthy = true
      const again = await runDsh(["subagents", "send", "coder-1", "CHILD try again", "--session", out.sessionId], { env })
      expect(again.stdout.trim()).toBe("recovered")
      expect((await children(home, out.sessionId))[0]?.status).toBe("completed")
    } finally {
      await server.close()
    }
  })

  it("bad send input is an input error", async () => {
    const home = makeHome()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ replies: [{ text: "hi" }] })
    try {
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: project(), env })
      const id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId
      const r = await runDsh(["subagents", "send", "nobody-1", "hello", "--session", id], { env })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/^dsh: unknown subagent "nobody-1"/)
    } finally {
      await server.close()
    }
  })
})

describe("background runs", () => {
  it("returns at once, announces the outcome exactly once, and wakes the idle parent", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) return { text: "background result", delayMs: 200 }
        if (announcementsIn(r).length > 0 && lastUser(r).startsWith("[subagent announcement]")) return { text: "got the result" }
        return step(r) === 0
          ? call("subagent", { description: "bg", agent: "explore", prompt: "CHILD in the background", background: true })
          : { text: "started it" }
      }
    })
    try {
      const home = makeHome()
      const run = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], {
        cwd: project(),
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      const out = JSON.parse(run.stdout) as { sessionId: string; status: string; result: string }
      expect(out).toMatchObject({ status: "completed", result: "got the result" })
      const afterAccept = server.requests.find((r) => !firstUser(r).startsWith("CHILD") && step(r) === 1)!
      expect(JSON.stringify(msgs(afterAccept))).toMatch(/\\"status\\":\\"accepted\\",\\"runId\\":\\"[^"]+\\",\\"handle\\":\\"explore-1\\"/)
      const last = server.requests.at(-1)!
      expect(announcementsIn(last)).toHaveLength(1)
      expect(announcementsIn(last)[0]).toContain("Status: completed")
      expect(announcementsIn(last)[0]).toContain("background result")
      const tasks = readdirSync(join(home, "sessions", out.sessionId, "tasks"))
      expect(tasks).toHaveLength(1)
      expect(JSON.parse(readFileSync(join(home, "sessions", out.sessionId, "tasks", tasks[0]!), "utf8"))).toMatchObject({ delivered: true, status: "completed" })
    } finally {
      await server.close()
    }
  })

  it("an outcome not yet delivered when the process is killed is delivered once after restart", async () => {
    const parentHangs = arrivals((r) => !firstUser(r).startsWith("CHILD") && step(r) === 1 && lastUser(r) === "PARENT", 1)
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        parentHangs.note(r)
        if (firstUser(r).startsWith("CHILD")) return { text: "survived the crash" }
        if (lastUser(r) === "PARENT") {
          return step(r) === 0 ? call("subagent", { description: "bg", agent: "explore", prompt: "CHILD background", background: true }) : { hang: true }
        }
        return { text: `seen ${announcementsIn(r).length}` }
      }
    })
    try {
      const home = makeHome()
      const cwd = project()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const first = startDsh(["run", "--allow", "subagent", "--model", "openai:any", "PARENT"], env, cwd)
      await parentHangs.promise
      const sessionId = readdirSync(join(home, "sessions"))[0]!
      const tasksDir = join(home, "sessions", sessionId, "tasks")
      // The child's outcome is persisted before anything is announced: wait for it, then kill -9.
      for (;;) {
        // Records only: the atomic writer's temp files (.<name>.tmp) may be half written.
        const files = existsSync(tasksDir) ? readdirSync(tasksDir).filter((f) => f.endsWith(".json") && !f.startsWith(".")) : []
        const done = files.map((f) => JSON.parse(readFileSync(join(tasksDir, f), "utf8")) as { status: string }).some((t) => t.status === "completed")
        if (done) break
        await new Promise((r) => setTimeout(r, 20))
      }
      first.child.kill("SIGKILL")
      await first.exited
      const second = await runDsh(["run", "--allow", "subagent", "--session", sessionId, "--output-format", "json", "PARENT after restart"], { env })
      expect(JSON.parse(second.stdout)).toMatchObject({ status: "completed", result: "seen 1" })
      const third = await runDsh(["run", "--allow", "subagent", "--session", sessionId, "--output-format", "json", "PARENT once more"], { env })
      expect(JSON.parse(third.stdout)).toMatchObject({ result: "seen 1" })
    } finally {
      await server.close()
    }
  })
})

describe("stop", () => {
  it("stops a child with its nested descendant from another process, and the parent's stop cancels the rest", async () => {
    const hanging = arrivals((r) => ["CHILD-B", "CHILD-C"].includes(firstUser(r)), 2)
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        hanging.note(r)
        const who = firstUser(r)
        if (who === "CHILD-A") return step(r) === 0 ? call("subagent", { description: "nested", agent: "coder", prompt: "CHILD-C" }) : { text: "A done" }
        if (who === "CHILD-B" || who === "CHILD-C") return { hang: true }
        return {
          toolCalls: [
            { name: "subagent", arguments: { description: "a", agent: "coder", prompt: "CHILD-A" } },
            { name: "subagent", arguments: { description: "b", agent: "coder", prompt: "CHILD-B" } }
          ]
        }
      }
    })
    try {
      const home = makeHome("[limits]\nmax_depth = 2\n")
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = startDsh(["run", "--allow", "subagent", "--model", "openai:any", "PARENT"], env, project())
      await hanging.promise
      const sessionId = readdirSync(join(home, "sessions"))[0]!
      const before = await children(home, sessionId)
      const a = before.find((c) => c.depth === 1 && before.some((d) => d.parent === c.name))!
      const stop = await runDsh(["subagents", "stop", a.name, "--session", sessionId, "--json"], { env })
      expect(stop.code).toBe(0)
      const stopped = (JSON.parse(stop.stdout) as { stopped: Array<{ name: string; status: string }> }).stopped
      expect(stopped.map((s) => s.status)).toEqual(["cancelled", "cancelled"])
      const mid = await children(home, sessionId)
      expect(mid.filter((c) => c.status === "running")).toHaveLength(1)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(1)
      const after = await children(home, sessionId)
      expect(after.map((c) => c.status)).toEqual(["cancelled", "cancelled", "cancelled"])
      expect(after.filter((c) => c.depth === 2)).toHaveLength(1)
    } finally {
      await server.close()
    }
  })
})
