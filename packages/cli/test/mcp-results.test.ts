import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

// Only the children answer from this script: the MCP client is the main agent.
const SCRIPT = {
  rules: [
    { when: { lastUser: "^extract", step: 0 }, reply: { toolCalls: [{ name: "report", arguments: { result: "found Ada", json: { name: "Ada", age: 36 } } }] } },
    { when: { lastUser: "^extract" }, reply: { text: "reported" } },
    { when: { lastUser: "^echo (.*)" }, reply: { text: "echo: {{1}}" } }
  ],
  fallback: { text: "fallback answer" }
}

const setup = () => {
  const home = makeHome()
  const cwd = tempDir("dsh-mcp-results-")
  const script = join(cwd, "script.json")
  writeFileSync(script, JSON.stringify(SCRIPT))
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, DSH_RESIDENT: "0" }
  return { home, cwd, env, args: ["mcp", "--model", `scripted:${script}`, "--allow", "subagent"] }
}

const connect = async (world: ReturnType<typeof setup>) => {
  const client = new Client({ name: "dsh-mcp-results-test", version: "0.0.0" })
  await client.connect(new StdioClientTransport({ command: DSH, args: world.args, env: world.env, cwd: world.cwd, stderr: "pipe" }))
  return client
}

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text

const PERSON = { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] }

describe("dsh mcp: typed results and bad input", () => {
  const world = setup()
  let client: Client
  beforeAll(async () => {
    client = await connect(world)
  })
  afterAll(async () => {
    await client.close()
  })

  it("subagent takes resultSchema and returns the child's JSON under result, as structuredContent", async () => {
    const { tools } = await client.listTools()
    expect(Object.keys(tools.find((t) => t.name === "subagent")!.inputSchema.properties ?? {})).toContain("resultSchema")
    const answer = await client.callTool({ name: "subagent", arguments: { description: "extract", prompt: "extract the person", resultSchema: PERSON } })
    expect(answer.isError).toBe(false)
    expect(answer.structuredContent).toMatchObject({ result: { name: "Ada", age: 36 }, status: "completed", handle: "coder-1" })
    // The text says the same, for clients that read only text.
    expect(JSON.parse(text(answer))).toEqual(answer.structuredContent)
  })

  it("a call without resultSchema is text only", async () => {
    const answer = await client.callTool({ name: "subagent", arguments: { description: "echo", prompt: "echo plain" } })
    expect(answer.structuredContent).toBeUndefined()
    expect(text(answer)).toContain("echo: plain")
  })

  it("a resultSchema that is not a JSON Schema is one isError line saying why, and starts no child", async () => {
    const before = (await client.callTool({ name: "list_agents", arguments: {} }))
    const answer = await client.callTool({ name: "subagent", arguments: { description: "bad", prompt: "echo bad", resultSchema: { type: "nonsense" } } })
    expect(answer.isError).toBe(true)
    expect(text(answer).trim().split("\n")).toHaveLength(1)
    expect(text(answer)).toContain("resultSchema is not a JSON Schema the child can report against: Unsupported type: nonsense")
    expect(text(await client.callTool({ name: "list_agents", arguments: {} }))).toBe(text(before))
  })

  it("a handle of another session is an isError result naming this session's children", async () => {
    // Another connection is another session, with a child of its own.
    const other = await connect(world)
    const theirs = await other.callTool({ name: "subagent", arguments: { description: "echo", prompt: "echo theirs", agent: "explore", background: true } })
    const { handle } = JSON.parse(text(theirs)) as { handle: string }
    await other.callTool({ name: "wait", arguments: { handles: [handle] } })
    await other.close()
    expect(handle).toBe("explore-1")
    const foreign = await client.callTool({ name: "send_message", arguments: { to: handle, message: "hello" } })
    expect(foreign.isError).toBe(true)
    expect(text(foreign)).toContain(`no child is named "explore-1"; yours: coder-1, coder-2`)
    const stopped = await client.callTool({ name: "stop", arguments: { handle } })
    expect(stopped.isError).toBe(true)
    expect(text(stopped)).toContain(`no child is named "explore-1"`)
  })

  it("an unknown tool is an isError result naming the tools there are", async () => {
    const answer = await client.callTool({ name: "swarm", arguments: {} })
    expect(answer.isError).toBe(true)
    expect(text(answer)).toBe(`unknown tool "swarm" (tools: subagent, send_message, list_agents, wait, stop)`)
  })

  it("leaves no child running after all of it", async () => {
    await client.close()
    expect(sessionIds(world.home)).toHaveLength(2)
    for (const session of sessionIds(world.home)) {
      const listed = await runDsh(["subagents", "list", "--session", session, "--json"], { env: world.env })
      const { subagents } = JSON.parse(listed.stdout) as { subagents: Array<{ status: string }> }
      expect(subagents.filter((s) => s.status === "running" || s.status === "queued")).toEqual([])
    }
  })
})

describe("dsh mcp: malformed JSON-RPC", () => {
  it("each malformed message gets an error naming what was wrong and what there is; the connection goes on, and ends with no child running", async () => {
    const world = setup()
    const child = spawn(DSH, world.args, { cwd: world.cwd, env: world.env, stdio: ["pipe", "pipe", "pipe"] })
    const replies: Array<Record<string, any>> = []
    const waiting: Array<() => void> = []
    createInterface({ input: child.stdout }).on("line", (line) => {
      replies.push(JSON.parse(line) as Record<string, any>)
      waiting.splice(0).forEach((w) => w())
    })
    const exited = new Promise<number | null>((done) => child.on("close", done))
    /** Sends a line, resolves with the next reply. */
    const exchange = (line: string) =>
      new Promise<Record<string, any>>((done) => {
        const seen = replies.length
        const check = () => (replies.length > seen ? done(replies[seen]!) : void waiting.push(check))
        child.stdin.write(`${line}\n`)
        check()
      })
    await exchange(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }))
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
    expect((await exchange("{\"jsonrpc\":\"2.0\",")).error).toEqual({ code: -32700, message: "Parse error: the line is not JSON (send one JSON-RPC 2.0 message per line)" })
    expect((await exchange(JSON.stringify({ id: 2, method: ["tools/call"] }))).error.code).toBe(-32600)
    expect((await exchange(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/run", params: {} }))).error).toEqual({
      code: -32601,
      message: `unknown method "tools/run"; this server answers: initialize, ping, tools/list, tools/call, resources/list, resources/read`
    })
    // A call whose arguments do not fit the tool: an error result naming the field, no child started.
    const bad = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "subagent", arguments: { prompt: 42 } } }))
    expect(bad.result.isError).toBe(true)
    expect(bad.result.content[0].text).toMatch(/prompt/)
    const listed = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "list_agents", arguments: {} } }))
    expect(listed.result.content[0].text).not.toMatch(/coder-\d/)
    child.stdin.end()
    expect(await exited).toBe(0)
  })
})
