import { Schema } from "effect"

/**
 * Why an MCP server's tools could not be had:
 * - `ConnectFailed`: the server could not be started or reached, or did not answer `initialize`;
 * - `ListFailed`: it answered, but listing its tools failed.
 * A tool call that fails later is not this error: it is a tool result the model reads.
 */
export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  reason: Schema.Literals(["ConnectFailed", "ListFailed"]),
  server: Schema.String,
  message: Schema.String
}) {}
