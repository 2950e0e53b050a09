import { FakeAcpAgent } from "@dsh/subagent-acp/testing"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, ElicitRequestSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

// The main agent is the MCP client; only the children answer from this script.
const SCRIPT = {
  rules: [
    { when: { lastUser: "^echo (.*)" }, reply: { text: "echo: {{1}}" } },
    { when: { lastUser: "^stream" }, reply: { text: "one two three four five six seven eight nine ten" } },
    // Says something (the test's signal that it runs), looks around, then never answers.
    { when: { lastUser: "^hang", step: 0 }, reply: { text: "working on it", toolCalls: [{ name: "Glob", arguments: { pattern: "*.json" } }] } },
    { when: { lastUser: "^hang" }, reply: { hang: true } },
    // A Write needs approval in the default mode: the MCP client is asked, when it can be.
    { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { text: "writing", toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "from the child\n" } }] } },
    { when: { lastUser: "^write", step: 1 }, reply: { text: "tool said: {{lastTool}}" } }
  ],
  fallback: { text: "fallback answer" }
}

const setup = (config?: string) => {
  const home = makeHome(config)
  const cwd = tempDir("dsh-mcp-project-")
  const script = join(cwd, "script.json")
  writeFileSync(script, JSON.stringify(SCRIPT))
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, DSH_RESIDENT: "0" }
  // Delegating to `coder` asks in the default mode (a type with write tools), as for `dsh run`:
  // the client allows it, and the children's own tool calls still go by the rules.
  return { home, cwd, env, args: ["mcp", "--model", `scripted:${script}`, "--allow", "subagent"] }
}

const connect = async (world: ReturnType<typeof setup>, extraArgs: ReadonlyArray<string> = []) => {
  const client = new Client({ name: "dsh-mcp-test", version: "0.0.0" })
  await client.connect(new StdioClientTransport({ command: DSH, args: [...world.args, ...extraArgs], env: world.env, cwd: world.cwd, stderr: "pipe" }))
  return client
}

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text

const childStatuses = async (world: ReturnType<typeof setup>) => {
  const session = sessionIds(world.home)[0]!
  const listed = await runDsh(["subagents", "list", "--session", session, "--json"], { env: world.env })
  expect(listed.code).toBe(0)
  const { subagents } = JSON.parse(listed.stdout) as { subagents: Array<{ name: string; status: string }> }
  return Object.fromEntries(subagents.map((s) => [s.name, s.status]))
}

describe("dsh mcp over real stdio, with the SDK's own client", () => {
  const world = setup()
  let client: Client
  beforeAll(async () => {
    client = await connect(world)
  })
  afterAll(async () => {
    await client.close()
  })

  it("lists the five subagent tools with their input schemas", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(["list_agents", "send_message", "stop", "subagent", "wait"])
    const subagent = tools.find((t) => t.name === "subagent")!
    expect(subagent.inputSchema.type).toBe("object")
    expect(Object.keys(subagent.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["agent", "prompt", "description", "background"]))
  })

  it("runs a foreground subagent and returns its result; send_message continues it; its transcript reads", async () => {
    const first = await client.callTool({ name: "subagent", arguments: { description: "echo", prompt: "echo hello" } })
    expect(first.isError).toBe(false)
    expect(text(first)).toContain("echo: hello")
    const handle = /\[subagent (\S+) /.exec(text(first))![1]!

    const again = await client.callTool({ name: "send_message", arguments: { to: handle, message: "echo again" } })
    expect(again.isError).toBe(false)
    expect(text(again)).toContain("echo: again")

    const { resources } = await client.listResources()
    const resource = resources.find((r) => r.name === `${handle}/transcript`)!
    expect(resource.uri).toMatch(new RegExp(`^dsh://[^/]+/${handle}/transcript$`))
    const read = await client.readResource({ uri: resource.uri })
    const lines = (read.contents[0] as { text: string }).text.split("\n").map((l) => JSON.parse(l) as { type: string })
    expect(lines.some((l) => l.type === "turn-start")).toBe(true)
    expect(JSON.stringify(lines)).toContain("echo: again")
  })

  it("starts a background subagent at once and wait returns its result", async () => {
    const accepted = await client.callTool({ name: "subagent", arguments: { description: "bg", prompt: "echo in the background", background: true } })
    const { status, handle } = JSON.parse(text(accepted)) as { status: string; handle: string }
    expect(status).toBe("accepted")
    const waited = await client.callTool({ name: "wait", arguments: { handles: [handle] } })
    expect(text(waited)).toContain("echo: in the background")
    expect(text(await client.callTool({ name: "list_agents", arguments: {} }))).toContain(`${handle} (coder) is completed`)
  })

  it("stop ends a running background subagent: cancelled", async () => {
    const accepted = await client.callTool({ name: "subagent", arguments: { description: "hang", prompt: "hang", background: true } })
    const { handle } = JSON.parse(text(accepted)) as { handle: string }
    const stopped = await client.callTool({ name: "stop", arguments: { handle } })
    expect(text(stopped)).toContain(handle)
    expect((await childStatuses(world))[handle]).toBe("cancelled")
  })

  it("sends the child's text so far as progress notifications when the call has a progress token", async () => {
    // Heard as they arrive, not through `onprogress`: the SDK's client retires a call's progress
    // handler on its response, and notifications read in the same chunk as the response are
    // dispatched a microtask later, so `onprogress` misses them on a loaded machine
    // (modelcontextprotocol/typescript-sdk#2580). The wire order is what this server controls.
    // Its own server and home: the handler below replaces the SDK's progress dispatch.
    const own = await connect(setup())
    const seen: Array<{ progress: number; message?: string | undefined; progressToken: string | number }> = []
    own.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push(n.params))
    const result = await own.callTool({ name: "subagent", arguments: { description: "stream", prompt: "stream" } }, undefined, {
      onprogress: () => undefined
    }).finally(() => own.close())
    expect(text(result)).toContain("one two three")
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen.map((p) => p.progressToken)).size).toBe(1)
    expect(seen.at(-1)!.message).toBe("one two three four five six seven eight nine ten")
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b))
  })

  it("a cancelled call stops its child: cancelled in dsh subagents list", async () => {
    const abort = new AbortController()
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const call = client.callTool({ name: "subagent", arguments: { description: "to cancel", prompt: "hang" } }, undefined, {
      signal: abort.signal,
      // Its first words are the signal that the child runs.
      onprogress: () => started()
    })
    await running
    abort.abort("the user changed their mind")
    await expect(call).rejects.toThrow()
    // The abort rejects the call at once and the server stops the child meanwhile; `wait` returns once it is down.
    const handle = Object.keys(await childStatuses(world)).at(-1)!
    await client.callTool({ name: "wait", arguments: { handles: [handle] } })
    expect((await childStatuses(world))[handle]).toBe("cancelled")
  })

  it("an unknown agent type is an isError result naming the available ones", async () => {
    const result = await client.callTool({ name: "subagent", arguments: { description: "x", prompt: "echo x", agent: "nope" } })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/unknown agent type "nope".*coder.*explore/)
  })
})

describe("dsh mcp sessions", () => {
  it("one new session per connection; --continue serves the latest, whose children continue", async () => {
    const world = setup()
    const first = await connect(world)
    await first.callTool({ name: "subagent", arguments: { description: "echo", prompt: "echo one" } })
    await first.close()
    const again = await connect(world, ["--continue"])
    const reply = await again.callTool({ name: "send_message", arguments: { to: "coder-1", message: "echo two" } })
    await again.close()
    expect(text(reply)).toContain("echo: two")
    expect(sessionIds(world.home)).toHaveLength(1)
    const fresh = await connect(world)
    expect(text(await fresh.callTool({ name: "list_agents", arguments: {} }))).toBe("You have no subagents.")
    await fresh.close()
    expect(sessionIds(world.home)).toHaveLength(2)
  })
})

describe("dsh mcp flags", () => {
  it("--agent-file binds the session's main agent: its disallowedTools hide tools from the client", async () => {
    const world = setup()
    const file = join(world.cwd, "lead.md")
    writeFileSync(file, "---\nname: lead\ndescription: leads without waiting\ndisallowedTools: wait\n---\nYou lead.\n")
    const client = await connect(world, ["--agent-file", file])
    const { tools } = await client.listTools()
    await client.close()
    expect(tools.map((t) => t.name).sort()).toEqual(["list_agents", "send_message", "stop", "subagent"])
  })

  it("bad usage is exit 2 with one line on stderr, before anything is served", async () => {
    const world = setup()
    for (const args of [["extra"], ["--model", "nope:x"], ["--cwd", "/nonexistent/dir"], ["--session", "nosuch"], ["--agent", "a", "--continue"]]) {
      const r = await runDsh(["mcp", ...args], { env: world.env, cwd: world.cwd })
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1)
    }
  })
})

describe("dsh mcp backends", () => {
  it("reaches another vendor's ACP agent configured in [acp.agents.*]", async () => {
    const world = setup([
      "[acp.agents.vendor]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = ${JSON.stringify([FakeAcpAgent.fakeAcpAgentScript(), ...FakeAcpAgent.fakeAcpAgentArgs({})])}`,
      ""
    ].join("\n"))
    const client = await connect(world)
    const result = await client.callTool({ name: "subagent", arguments: { description: "vendor", prompt: "whoami", agent: "acp:vendor" } })
    await client.close()
    expect(result.isError).toBe(false)
    expect(text(result)).toContain("[subagent acp-vendor-1 (acp:vendor) · completed")
  })
})

describe("dsh mcp permission questions", () => {
  it("go to a client with the elicitation capability, whose answer decides", async () => {
    const world = setup()
    const client = new Client({ name: "dsh-mcp-test", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } })
    const asked: Array<string> = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message)
      return { action: "accept", content: { decision: "allow once" } }
    })
    await client.connect(new StdioClientTransport({ command: DSH, args: world.args, env: world.env, cwd: world.cwd, stderr: "pipe" }))
    const result = await client.callTool({ name: "subagent", arguments: { description: "write", prompt: "write note.md" } })
    await client.close()
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain("note.md")
    expect(text(result)).not.toContain("needs approval")
    expect(readFileSync(join(world.cwd, "note.md"), "utf8")).toBe("from the child\n")
  })

  it("are denials naming the rule for a client without it", async () => {
    const world = setup()
    const client = await connect(world)
    const result = await client.callTool({ name: "subagent", arguments: { description: "write", prompt: "write note.md" } })
    await client.close()
    expect(text(result)).toMatch(/Write\(note\.md\) needs approval \(mode: default\).*elicitation/)
    expect(existsSync(join(world.cwd, "note.md"))).toBe(false)
  })
})

/** A raw line client, for what the SDK's client will not send (malformed lines, a bare stdin close). */
const rawServer = (world: ReturnType<typeof setup>) => {
  const child = spawn(DSH, world.args, { cwd: world.cwd, env: world.env, stdio: ["pipe", "pipe", "pipe"] })
  const replies = new Map<unknown, (message: Record<string, unknown>) => void>()
  const lines = createInterface({ input: child.stdout })
  lines.on("line", (line) => {
    const message = JSON.parse(line) as Record<string, unknown>
    replies.get(message["id"])?.(message)
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const reply = (id: unknown) => new Promise<Record<string, unknown>>((resolve) => replies.set(id, resolve))
  const send = (line: string) => child.stdin.write(`${line}\n`)
  const request = (id: number, method: string, params: unknown) => {
    const answer = reply(id)
    send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
    return answer
  }
  const initialize = async () => {
    await request(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } })
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  }
  return { child, exited, reply, send, request, initialize }
}

describe("dsh mcp with a raw line client", () => {
  it("answers a malformed line with a JSON-RPC error and goes on serving", async () => {
    const server = rawServer(setup())
    await server.initialize()
    const parseError = server.reply(null)
    server.send("{this is not json")
    expect(((await parseError)["error"] as { code: number }).code).toBe(-32700)
    const invalid = server.reply(7)
    server.send(JSON.stringify({ id: 7, method: 42 }))
    expect(((await invalid)["error"] as { code: number }).code).toBe(-32600)
    const unknown = await server.request(8, "no/such/method", {})
    expect((unknown["error"] as { code: number }).code).toBe(-32601)
    const listed = await server.request(9, "tools/list", {})
    expect((listed["result"] as { tools: Array<unknown> }).tools).toHaveLength(5)
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
  })

  it("closing stdin stops the connection's children and exits 0", async () => {
    const world = setup()
    const server = rawServer(world)
    await server.initialize()
    const accepted = await server.request(1, "tools/call", { name: "subagent", arguments: { description: "hang", prompt: "hang", background: true } })
    const { handle } = JSON.parse(((accepted["result"] as CallToolResult).content[0] as { text: string }).text) as { handle: string }
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
    expect((await childStatuses(world))[handle]).toBe("cancelled")
  })
})
