import { assert, describe, it } from "@effect/vitest"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Effect, Exit, Schedule, Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { McpServerConfig, McpTools } from "../src/index.ts"

// Real MCP servers (the MCP SDK's own server, `test/fixtures/mcp-server.ts`) over stdio and HTTP.
const FIXTURE = resolve(import.meta.dirname, "fixtures/mcp-server.ts")
const stdio = { name: "fake", command: process.execPath, args: [FIXTURE] }
const context = { cwd: "/tmp", callId: "c1", agent: "main" }
const launcher = Effect.provide(LocalProcessLauncher.layer())

describe("MCP servers as tools", () => {
  it.live("a stdio server's tools are mcp__<server>__<tool>, with their schema, and run through the server", () =>
    Effect.gen(function*() {
      const tools = yield* McpTools.connectMcpServers([stdio])
      assert.deepStrictEqual(tools.map((t) => t.name), ["mcp__fake__echo", "mcp__fake__fail"])
      const echo = tools[0]!
      assert.isTrue(echo.needsApproval)
      assert.include(echo.description, "Echoes its text")
      assert.isTrue(echo.parameters.safeParse({ text: "hi" }).success)
      assert.isFalse(echo.parameters.safeParse({ text: 3 }).success)
      assert.deepStrictEqual(yield* echo.execute({ text: "hello" }, context), { content: "echo: hello", isError: false })
      assert.deepStrictEqual(yield* tools[1]!.execute({}, context), { content: "it broke", isError: true })
    }).pipe(Effect.scoped, launcher), 30_000)

  it.live("the server process lives as long as the scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      yield* McpTools.connectMcpServers([stdio]).pipe(Scope.provide(scope))
      const server = serverPid(process.pid)
      assert.isDefined(server)
      assert.isFalse(ProcessChecks.isGone(server!))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Effect.sync(() => ProcessChecks.isGone(server!)).pipe(Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (g) => g, times: 250 })))
    }).pipe(launcher), 30_000)

  it.live("an HTTP server over Streamable HTTP", () =>
    Effect.gen(function*() {
      const portFile = join(mkdtempSync(join(tmpdir(), "dsh-mcp-http-")), "port")
      const http: ChildProcess = spawn(process.execPath, [FIXTURE, "http", portFile], { stdio: "ignore" })
      yield* Effect.addFinalizer(() => Effect.sync(() => void http.kill("SIGKILL")))
      yield* Effect.sync(() => existsSync(portFile) && readFileSync(portFile, "utf8") !== "").pipe(
        Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (r) => r, times: 500 })
      )
      const url = `http://127.0.0.1:${readFileSync(portFile, "utf8")}/mcp`
      const server = McpServerConfig.fromAcpMcpServer({ type: "http", name: "web", url, headers: [{ name: "X-Test", value: "1" }] })
      assert.deepStrictEqual(server, { name: "web", url, headers: { "X-Test": "1" } })
      const tools = yield* McpTools.connectMcpServers([server!])
      assert.strictEqual(tools[0]!.name, "mcp__web__echo")
      assert.deepStrictEqual(yield* tools[0]!.execute({ text: "over http" }, context), { content: "echo: over http", isError: false })
    }).pipe(Effect.scoped, launcher), 30_000)

  it.live("a server that cannot start fails with McpError naming it", () =>
    Effect.gen(function*() {
      const error = yield* McpTools.connectMcpServers([{ name: "ghost", command: "dsh-no-such-mcp-server" }]).pipe(Effect.flip)
      assert.strictEqual(error.reason, "ConnectFailed")
      assert.include(error.message, "MCP server \"ghost\"")
      assert.include(error.message, "dsh-no-such-mcp-server")
    }).pipe(Effect.scoped, launcher), 30_000)

  it.effect("an ACP client's servers: a kind it does not speak fails naming it before any starts; a stdio one that cannot start fails naming its command", () =>
    Effect.gen(function*() {
      const refused = yield* McpTools.connectAcpMcpServers([{ name: "ghost", command: "dsh-no-such-mcp-server", args: [], env: [] }, { type: "sse", name: "old", url: "http://x", headers: [] }], tmpdir()).pipe(Effect.flip)
      assert.strictEqual(refused, "MCP server \"old\": only stdio and HTTP servers are supported")
      const failed = yield* McpTools.connectAcpMcpServers([{ name: "ghost", command: "dsh-no-such-mcp-server", args: [], env: [] }], tmpdir()).pipe(Effect.flip)
      assert.include(failed, "dsh-no-such-mcp-server")
    }).pipe(Effect.scoped, launcher), 30_000)

  it("names: unsafe characters become _", () => {
    assert.strictEqual(McpTools.mcpToolName("my files", "read.file"), "mcp__my_files__read_file")
    assert.deepStrictEqual(McpServerConfig.fromAcpMcpServer({ name: "s", command: "x", args: ["a"], env: [{ name: "K", value: "v" }] }), { name: "s", command: "x", args: ["a"], env: { K: "v" } })
    assert.isUndefined(McpServerConfig.fromAcpMcpServer({ type: "sse", name: "old", url: "http://x" }))
  })
})

/** The node child of `parent` running the fixture (its watchdog and others left out). */
const serverPid = (parent: number): number | undefined => {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("mcp-server.ts")) return Number(entry)
    } catch {
      continue
    }
  }
  return undefined
}
