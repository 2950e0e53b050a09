import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "../support.ts"
import { agentToml, readJson } from "./support.ts"

// Issue 21 item 5(g): after a kill -9 of its owner and a recovery, every record of an
// out-of-process child — meta.json, its descriptor in state.json, its task — says the same.

type Msg = { readonly role: string; readonly content: string | null }
const users = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages.filter((m) => m.role === "user").map((m) => m.content ?? "")
const assistants = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages.filter((m) => m.role === "assistant").length
const bg = (agent: string, prompt: string) => ({ name: "subagent", arguments: { description: prompt.slice(0, 20), agent, prompt, background: true } })

const launched: Array<ChildProcess> = []
const servers: Array<FakeOpenAIServer.FakeServer> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  for (const s of servers.splice(0)) await s.close()
})

/** Polls an observable condition (files on disk); bounded. */
const until = async (what: string, holds: () => boolean, attempts = 750) => {
  for (let i = 0; i < attempts; i++) {
    if (holds()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}
const metaStatus = (dir: string, handle: string) => {
  const file = join(dir, "agents", handle, "meta.json")
  return existsSync(file) ? String(readJson(file).status) : undefined
}

describe("fault matrix: records of recovered children", { timeout: 90_000 }, () => {
  it("kill -9 with ACP and SDK children running, then --continue: meta.json, state.json and the task all say lost", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        const all = users(r)
        if (all[0]?.startsWith("CHILD")) return { hang: true }
        if (all.includes("AFTER")) return { text: "after" }
        return assistants(r) === 0 ? { toolCalls: [bg("acp:stubborn", "silent"), bg("sdk:dsh", "CHILD waits")] } : { hang: true }
      }
    })
    servers.push(server)
    const home = makeHome(agentToml("stubborn", { exitOnEof: false, ignoreSigterm: true }))
    const cwd = tempDir("dsh-recover-cwd-")
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
    const run = spawn(DSH, ["run", "--allow", "subagent", "--model", "openai:any", "PARENT"], { cwd, env, stdio: "ignore" })
    launched.push(run)
    const exited = new Promise((resolve) => run.on("close", resolve))
    const sessions = join(home, "sessions")
    await until("a session", () => existsSync(sessions) && readdirSync(sessions).length === 1)
    const dir = join(sessions, readdirSync(sessions)[0]!)
    // Both children are running (their drivers wrote their pids), and the SDK child asked its model.
    await until("both children running", () => {
      const agents = existsSync(join(dir, "agents")) ? readdirSync(join(dir, "agents")) : []
      return agents.length === 2 && agents.every((h) => metaStatus(dir, h) === "running")
    })
    await until("the SDK child's model call", () => server.requests.some((r) => users(r)[0]?.startsWith("CHILD") === true))
    const handles = readdirSync(join(dir, "agents")).sort()
    run.kill("SIGKILL")
    await exited
    // The drivers died with their owner: nothing wrote how the runs ended.
    expect(handles.map((h) => metaStatus(dir, h))).toEqual(["running", "running"])

    const again = await runDsh(["run", "--continue", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "AFTER"], { env, cwd })
    expect(again.code, again.stderr).toBe(0)
    const state = readJson(join(dir, "state.json")).subagents as Record<string, { status: string; runId: string }>
    const tasks = readdirSync(join(dir, "tasks")).filter((f) => f.endsWith(".json")).map((f) => readJson(join(dir, "tasks", f)))
    for (const handle of handles) {
      const descriptor = state[handle]!
      const task = tasks.find((t) => t.runId === descriptor.runId)
      expect({ handle, descriptor: descriptor.status, task: task?.status, meta: metaStatus(dir, handle) }).toEqual({ handle, descriptor: "lost", task: "lost", meta: "lost" })
    }
  })
})
