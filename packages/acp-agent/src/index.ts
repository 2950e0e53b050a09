/**
 * @dsh/acp-agent: serves a dsh agent over the Agent Client Protocol (`dsh acp`), for editors
 * and for parent agents that drive children over ACP (`@dsh/subagent-acp`).
 */
export * as AcpServeError from "./AcpServeError.ts"
export * as ServeAcp from "./ServeAcp.ts"
