import * as acp from "@agentclientprotocol/sdk/unstable"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

// `dsh acp` (the built CLI) over real stdio, driven by a plain ACP client written with the SDK.
const CLI_MAIN = resolve(import.meta.dirname, "../../cli/dist/main.js")
const CLI_VERSION = (JSON.parse(readFileSync(resolve(import.meta.dirname, "../../cli/package.json"), "utf8")) as { version: string }).version

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

const script = (() => {
  const file = join(tempDir("dsh-acp-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    name: "acp-e2e",
    rules: [
      { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { text: "Writing the file.", toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "from dsh acp\n" } }], usage: { input: 30, output: 8 } } },
      { when: { lastUser: "^write", step: 1 }, reply: { text: "Done: {{lastTool}}", usage: { input: 40, output: 6 } } },
      { when: { lastUser: "^slow" }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "sleep 30" } }] } },
      { when: { lastUser: "^sleepers (\\S+)" }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "sleep 31 & echo $! > {{1}}; wait" } }] } },
      { when: { lastUser: "^hello" }, reply: { text: "Hello there, friend.", usage: { input: 5, output: 4 } } },
      { when: { lastUser: "^mcp (.*)$", step: 0 }, reply: { toolCalls: [{ name: "mcp__fake__echo", arguments: { text: "{{1}}" } }] } },
      { when: { lastUser: "^mcp", step: 1 }, reply: { text: "MCP said: {{lastTool}}" } }
    ]
  }))
  return file
})()

interface Served {
  readonly child: ChildProcessWithoutNullStreams
  readonly stream: acp.Stream
  /** Every line the server wrote to stdout. */
  readonly lines: Array<string>
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** Spawns `dsh acp` and frames its stdio; stdout lines are recorded to check nothing else is written. */
const serve = (home: string, cwd: string): Served => {
  const child = spawn(process.execPath, [CLI_MAIN, "acp", "--model", `scripted:${script}`], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), DSH_HOME: home },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const lines: Array<string> = []
  let partial = ""
  let stderr = ""
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
  let open = true
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on("data", (c: Buffer) => {
        partial += c.toString()
        const parts = partial.split("\n")
        partial = parts.pop() ?? ""
        lines.push(...parts.filter((l) => l !== ""))
        if (open) controller.enqueue(new Uint8Array(c))
      })
      child.stdout.on("end", () => {
        if (open) controller.close()
        open = false
      })
    },
    cancel() {
      open = false
    }
  })
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((res, rej) => child.stdin.write(chunk, (e) => (e ? rej(e) : res())))
  })
  const exited = new Promise<number | null>((res) => child.on("exit", (code) => res(code)))
  return { child, stream: acp.ndJsonStream(writable, readable), lines, stderr: () => stderr, exited }
}

const client = () => {
  const updates: Array<acp.SessionNotification> = []
  const permissions: Array<acp.RequestPermissionRequest> = []
  let onUpdate: ((u: acp.SessionNotification) => void) | undefined
  const app = acp.client({ name: "e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params)
      onUpdate?.(params)
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params)
      return { outcome: { outcome: "selected", optionId: "allow_once" } }
    })
  return { app, updates, permissions, watch: (f: (u: acp.SessionNotification) => void) => (onUpdate = f) }
}

const initialize = (agent: acp.ClientContext) =>
  agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }
  })

const text = (updates: ReadonlyArray<acp.SessionNotification>) =>
  updates.flatMap((u) => u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text" ? [u.update.content.text] : []).join("")

describe("dsh acp over stdio", () => {
  it("initialize, new session, prompt with a permission, cancel, then load in a new process", async () => {
    expect(existsSync(CLI_MAIN), "build the CLI first").toBe(true)
    const home = tempDir("dsh-acp-home-")
    const cwd = tempDir("dsh-acp-cwd-")

    // First process: a full turn with a tool that needs approval, then a cancelled turn.
    const first = serve(home, cwd)
    const c1 = client()
    const run1 = await c1.app.connectWith(first.stream, async (agent) => {
      const hello = await initialize(agent)
      const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })
      const answer = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write out.txt" }] })
      const turnUpdates = c1.updates.length
      const bashStarted = new Promise<void>((res) =>
        c1.watch((u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "execute" && res())
      )
      const slow = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "slow" }] })
      await bashStarted
      const cancelledAt = Date.now()
      await agent.notify(acp.methods.agent.session.cancel, { sessionId })
      const cancelled = await slow
      return { hello, sessionId, answer, turnUpdates, cancelled, cancelMs: Date.now() - cancelledAt }
    })
    first.child.stdin.end()
    expect(await first.exited).toBe(0) // exits by itself when stdin closes

    expect(run1.hello.agentInfo).toMatchObject({ name: "dsh", version: CLI_VERSION })
    expect(run1.hello.agentCapabilities?.loadSession).toBe(true)
    expect(run1.answer).toEqual({ stopReason: "end_turn", usage: { inputTokens: 70, outputTokens: 14, totalTokens: 84 } })
    const turn = c1.updates.slice(0, run1.turnUpdates)
    expect(turn.every((u) => u.sessionId === run1.sessionId)).toBe(true)
    expect(turn.map((u) => u.update.sessionUpdate)).toEqual(expect.arrayContaining(["agent_message_chunk", "tool_call", "tool_call_update"]))
    expect(turn.find((u) => u.update.sessionUpdate === "tool_call")?.update).toMatchObject({ title: "Write out.txt", kind: "edit" })
    expect(turn.find((u) => u.update.sessionUpdate === "tool_call_update")?.update).toMatchObject({ status: "completed" })
    expect(text(turn)).toBe("Writing the file.Done: Created out.txt: wrote 13 bytes.")
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("from dsh acp\n")
    expect(c1.permissions.map((p) => p.toolCall.title)).toEqual([expect.stringContaining("Write"), expect.stringContaining("sleep 30")])
    expect(run1.cancelled.stopReason).toBe("cancelled")
    expect(run1.cancelMs).toBeLessThan(3000)
    // stdout carried protocol frames only; nothing went to stderr either.
    expect(first.lines.every((l) => (JSON.parse(l) as { jsonrpc?: string }).jsonrpc === "2.0")).toBe(true)
    expect(first.stderr()).toBe("")

    // Second process, same DSH_HOME: load replays the conversation, and the session goes on.
    const second = serve(home, cwd)
    const c2 = client()
    const run2 = await c2.app.connectWith(second.stream, async (agent) => {
      await initialize(agent)
      await agent.request(acp.methods.agent.session.load, { sessionId: run1.sessionId, cwd, mcpServers: [] })
      const replayed = [...c2.updates]
      const answer = await agent.request(acp.methods.agent.session.prompt, { sessionId: run1.sessionId, prompt: [{ type: "text", text: "hello" }] })
      return { replayed, answer }
    })
    second.child.stdin.end()
    expect(await second.exited).toBe(0)
    const replayedKinds = run2.replayed.map((u) => u.update.sessionUpdate)
    expect(replayedKinds[0]).toBe("user_message_chunk")
    expect(replayedKinds).toEqual(expect.arrayContaining(["tool_call", "tool_call_update", "agent_message_chunk"]))
    expect(JSON.stringify(run2.replayed)).toContain("write out.txt")
    expect(JSON.stringify(run2.replayed)).toContain("Done: Created out.txt")
    expect(run2.answer.stopReason).toBe("end_turn")
    expect(text(c2.updates.slice(run2.replayed.length))).toBe("Hello there, friend.")
  }, 30_000)

  it("SIGTERM mid-turn stops the turn, its processes, and the server itself", async () => {
    const cwd = tempDir("dsh-acp-cwd-")
    const pidFile = join(cwd, "sleeper.pid")
    // Unconfined: the test reads the sleeper's pid from outside (in the sandbox it would be a pid of its own namespace).
    const home = tempDir("dsh-acp-home-")
    writeFileSync(join(home, "config.toml"), "[sandbox]\nmode = \"off\"\n")
    const served = serve(home, cwd)
    const c = client()
    const { agent } = c.app.connect(served.stream)
    await initialize(agent)
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })
    void agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `sleepers ${pidFile}` }] }).catch(() => undefined)
    // Wait for the background sleep to exist (its pid file is the signal), then stop the server.
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") await new Promise((r) => setTimeout(r, 10))
    const sleeper = Number(readFileSync(pidFile, "utf8"))
    const at = Date.now()
    served.child.kill("SIGTERM")
    const stopped = { code: await served.exited, ms: Date.now() - at, sleeper }
    expect(stopped.code).toBe(1)
    expect(stopped.ms).toBeLessThan(3000)
    expect(served.stderr()).toBe("dsh: cancelled\n")
    const gone = (pid: number) => {
      try {
        process.kill(pid, 0)
      } catch {
        return true
      }
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8") // a zombie (never reaped here) is dead too
      return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
    }
    for (let i = 0; i < 100 && !gone(stopped.sleeper); i++) await new Promise((r) => setTimeout(r, 20))
    expect(gone(stopped.sleeper)).toBe(true)
  }, 30_000)

  it("a bad --model is refused before anything is served", async () => {
    const child = spawn(process.execPath, [CLI_MAIN, "acp", "--model", "nosuch:model"], {
      env: { PATH: process.env.PATH ?? "", DSH_HOME: tempDir("dsh-acp-home-") },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise<number | null>((res) => child.on("exit", res))
    expect(code).toBe(2)
    expect(stdout).toBe("")
    expect(stderr).toContain("nosuch")
  })

  it("connects the MCP servers a client gives in session/new; their tools are mcp__<server>__<tool>", async () => {
    const home = tempDir("dsh-acp-home-")
    const cwd = tempDir("dsh-acp-cwd-")
    const server = serve(home, cwd)
    const c = client()
    // A real MCP server built with the MCP SDK (the fixture of @dsh/tools-mcp's tests).
    const fixture = resolve(import.meta.dirname, "../../tools-mcp/test/fixtures/mcp-server.ts")
    const run = await c.app.connectWith(server.stream, async (agent) => {
      const hello = await initialize(agent)
      const { sessionId } = await agent.request(acp.methods.agent.session.new, {
        cwd,
        mcpServers: [{ name: "fake", command: process.execPath, args: [fixture], env: [] }]
      })
      const answer = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "mcp hi there" }] })
      return { hello, answer }
    })
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
    expect(run.hello.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false })
    expect(run.answer.stopReason).toBe("end_turn")
    expect(text(c.updates)).toBe("MCP said: echo: hi there")
    // The MCP tool asked the client first, like any tool that needs approval.
    expect(c.permissions.map((p) => p.toolCall.title)).toEqual([expect.stringContaining("fake: echo")])
    expect(c.updates.find((u) => u.update.sessionUpdate === "tool_call")?.update).toMatchObject({ name: "mcp__fake__echo" })
  }, 60_000)
})
