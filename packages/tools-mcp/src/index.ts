/**
 * @dsh/tools-mcp: MCP servers as dsh tools. Stdio servers run through the `ProcessLauncher`,
 * HTTP servers over Streamable HTTP, with the official MCP TypeScript SDK as the client.
 */
export * as McpError from "./McpError.ts"
export * as McpServerConfig from "./McpServerConfig.ts"
export * as McpTools from "./McpTools.ts"
