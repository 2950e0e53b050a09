/**
 * @dsh/mcp-server: a dsh host's subagent tools (`subagent`, `send_message`, `list_agents`,
 * `wait`, `stop`) and its children's transcripts, served over MCP on stdio (`dsh mcp`).
 */
export * as LineTransport from "./LineTransport.ts"
export * as ServeMcp from "./ServeMcp.ts"
export * as StopTool from "./StopTool.ts"
export * as TranscriptUri from "./TranscriptUri.ts"
