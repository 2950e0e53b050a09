/** An MCP server run as a local process, spoken to over its stdio. */
export interface McpStdioServer {
  readonly name: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** Variables set for it, on top of the launcher's scrubbed environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Its working directory (default: the launcher's). */
  readonly cwd?: string | undefined
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
  readonly name: string
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** One MCP server to connect. */
export type McpServerConfig = McpStdioServer | McpHttpServer

/** The shape ACP's `session/new` uses for MCP servers (`env` and `headers` as name/value lists). */
export type AcpMcpServer =
  | { readonly name: string; readonly command: string; readonly args: ReadonlyArray<string>; readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }> }
  | { readonly type: "http" | "sse" | "acp"; readonly name: string; readonly url?: string | undefined; readonly headers?: ReadonlyArray<{ readonly name: string; readonly value: string }> | undefined }

const table = (pairs: ReadonlyArray<{ readonly name: string; readonly value: string }> | undefined) =>
  Object.fromEntries((pairs ?? []).map((p) => [p.name, p.value]))

/**
 * An MCP server as an ACP client gives it in `session/new` (stdio or HTTP), as this package
 * connects it; undefined for kinds it does not speak (SSE, ACP-tunnelled servers).
 */
export const fromAcpMcpServer = (server: AcpMcpServer): McpServerConfig | undefined => {
  if ("command" in server) return { name: server.name, command: server.command, args: server.args, env: table(server.env) }
  if (server.type === "http" && server.url !== undefined) return { name: server.name, url: server.url, headers: table(server.headers) }
  return undefined
}
