import { Version } from "@dsh/core"
import { ProcessLauncher, WebStdio } from "@dsh/subprocess"
import { Tool } from "@dsh/tools"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { type Duration, Effect, Option, type Scope } from "effect"
import { z } from "zod"
import { LauncherTransport } from "./internal/LauncherTransport.ts"
import { McpError } from "./McpError.ts"
import { type AcpMcpServer, fromAcpMcpServer, type McpServerConfig } from "./McpServerConfig.ts"

/** The tool name a model sees for `tool` of `server`: `mcp__<server>__<tool>` (what `mcp__*` rules match). */
export const mcpToolName = (server: string, tool: string): string => `mcp__${server.replace(/[^A-Za-z0-9_-]/g, "_")}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`

export interface ConnectMcpOptions {
  /** How long a server may take to answer `initialize` and list its tools. Default 20 seconds. */
  readonly connectTimeout?: Duration.Input | undefined
  /** Who we are to the server. Default `dsh` and this package's version. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** An MCP tool's JSON Schema as zod, for the tool seam (the model is told the same schema back). */
const parametersOf = (schema: unknown): z.ZodType => {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
  } catch {
    return z.record(z.string(), z.unknown())
  }
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>

/** A tool result's content as text: text items as they are, others by kind. */
const textOf = (result: CallResult): string => {
  const content = Array.isArray(result.content) ? (result.content as ReadonlyArray<{ type: string; text?: string; resource?: { uri?: string; text?: string } }>) : []
  const parts = content.map((c) => c.type === "text" ? c.text ?? "" : c.type === "resource" ? c.resource?.text ?? `[resource ${c.resource?.uri ?? ""}]` : `[${c.type}]`)
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return parts.join("\n")
}

/** The MCP SDK loads when the first server connects: a harness that offers no MCP pays nothing. */
const loadSdk = Effect.promise(async () => ({
  client: await import("@modelcontextprotocol/sdk/client/index.js"),
  http: await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
}))

/** One server: connected for as long as the scope lives, and its tools. */
const connectOne = (server: McpServerConfig, options: ConnectMcpOptions): Effect.Effect<ReadonlyArray<Tool.AnyTool>, McpError, Scope.Scope | ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const fail = (reason: McpError["reason"], e: unknown) => new McpError({ reason, server: server.name, message: `MCP server "${server.name}": ${messageOf(e)}` })
    const sdk = yield* loadSdk
    const transport = "command" in server
      ? new LauncherTransport(
        yield* (yield* ProcessLauncher.ProcessLauncher).spawn({ command: server.command, args: server.args, env: server.env, cwd: server.cwd }).pipe(
          Effect.mapError((e) => fail("ConnectFailed", e.message)),
          Effect.flatMap(WebStdio.childNodeStdio)
        )
      )
      : new sdk.http.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } })
    const client = new sdk.client.Client(options.clientInfo ?? { name: "dsh", version: Version.VERSION })
    const timeout = options.connectTimeout ?? "20 seconds"
    const connected = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => client.connect(transport), catch: (e) => fail("ConnectFailed", e) }),
      () => Effect.promise(() => client.close().catch(() => undefined))
    ).pipe(Effect.timeoutOption(timeout))
    if (Option.isNone(connected)) return yield* fail("ConnectFailed", "no answer to initialize in time")
    const listed = yield* Effect.tryPromise({
      try: async () => {
        const all: Array<Awaited<ReturnType<Client["listTools"]>>["tools"][number]> = []
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor })
          all.push(...page.tools)
          cursor = page.nextCursor
        } while (cursor !== undefined)
        return all
      },
      catch: (e) => fail("ListFailed", e)
    }).pipe(Effect.timeoutOption(timeout))
    if (Option.isNone(listed)) return yield* fail("ListFailed", "no answer to tools/list in time")
    return listed.value.map((tool): Tool.AnyTool =>
      Tool.defineTool({
        name: mcpToolName(server.name, tool.name),
        description: `${tool.description ?? tool.title ?? tool.name} (MCP server "${server.name}")`,
        parameters: parametersOf(tool.inputSchema),
        // An MCP tool may do anything: the approval rules decide (`mcp__*`, `mcp__<server>__*`).
        needsApproval: true,
        summarize: (params) => `${server.name}: ${tool.name} ${JSON.stringify(params).slice(0, 100)}`,
        execute: (params) =>
          Effect.tryPromise({
            try: () => client.callTool({ name: tool.name, arguments: params as Record<string, unknown> }),
            catch: (e) => new Tool.ToolError({ message: `MCP server "${server.name}" could not run ${tool.name}: ${messageOf(e)}` })
          }).pipe(Effect.map((result) => ({ content: textOf(result), isError: result.isError === true })))
      })
    )
  }).pipe(Effect.withSpan("Mcp.connect", { attributes: { server: server.name } }))

/**
 * Connects MCP servers — stdio servers started through the `ProcessLauncher` (scrubbed
 * environment, own process group, killed with the scope and with this process), HTTP servers
 * over Streamable HTTP — and returns their tools as dsh tools named `mcp__<server>__<tool>`,
 * each asking the approval rules before it runs. Connections live as long as the scope. A
 * server that cannot be reached or listed fails the whole call with `McpError` naming it.
 */
export const connectMcpServers = (
  servers: ReadonlyArray<McpServerConfig>,
  options: ConnectMcpOptions = {}
): Effect.Effect<ReadonlyArray<Tool.AnyTool>, McpError, Scope.Scope | ProcessLauncher.ProcessLauncher> =>
  Effect.map(Effect.forEach(servers, (server) => connectOne(server, options), { concurrency: "unbounded" }), (lists) => lists.flat())

/**
 * The MCP servers an ACP client gives a session (`session/new`), connected: stdio ones started in
 * `cwd` through the context's launcher, HTTP ones directly. A kind this package does not speak
 * (SSE, ACP-tunnelled) fails naming the server, before anything is connected.
 */
export const connectAcpMcpServers = (
  servers: ReadonlyArray<AcpMcpServer>,
  cwd: string
): Effect.Effect<ReadonlyArray<Tool.AnyTool>, string, Scope.Scope | ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const configs: Array<McpServerConfig> = []
    for (const server of servers) {
      const config = fromAcpMcpServer(server)
      if (config === undefined) return yield* Effect.fail(`MCP server "${server.name}": only stdio and HTTP servers are supported`)
      configs.push({ ...config, ...("command" in config ? { cwd } : {}) })
    }
    return yield* connectMcpServers(configs).pipe(Effect.mapError((e) => e.message))
  })
