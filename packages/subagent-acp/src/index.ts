/**
 * @dsh/subagent-acp: the `acp` backend. A continuable child in its own process, driven over the
 * Agent Client Protocol: any ACP agent command (`acp:<name>` from config.toml), and this same
 * CLI as `acp:dsh`.
 */
export * from "./AcpAgentConfig.ts"
export * from "./AcpChildError.ts"
export * from "./AcpContinuation.ts"
export * from "./AcpProvider.ts"
