/**
 * @dsh/subagent-acp: the `acp` backend. A continuable child in its own process, driven over the
 * Agent Client Protocol: any ACP agent command (`acp:<name>` from config.toml), and this same
 * CLI as `acp:dsh`.
 */
export * as AcpAgentConfig from "./AcpAgentConfig.ts"
export * as AcpChildError from "./AcpChildError.ts"
export * as AcpContinuation from "./AcpContinuation.ts"
export * as AcpProvider from "./AcpProvider.ts"
