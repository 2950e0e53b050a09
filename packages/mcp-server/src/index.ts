/**
 * @dsh/mcp-server: a dsh host's subagent tools (`subagent`, `send_message`, `list_agents`,
 * `wait`, `stop`) and its children's transcripts, served over MCP on stdio (`dsh mcp`).
 */
export * from "./LineTransport.ts"
export * from "./ServeMcp.ts"
export * from "./StopTool.ts"
export * from "./TranscriptUri.ts"
