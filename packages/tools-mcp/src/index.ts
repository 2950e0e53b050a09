/**
 * @dsh/tools-mcp: MCP servers as dsh tools. Stdio servers run through the `ProcessLauncher`,
 * HTTP servers over Streamable HTTP, with the official MCP TypeScript SDK as the client.
 */
export * from "./McpError.ts"
export * from "./McpServerConfig.ts"
export * from "./McpTools.ts"
