/**
 * @dsh/acp-agent: serves a dsh agent over the Agent Client Protocol (`dsh acp`), for editors
 * and for parent agents that drive children over ACP (`@dsh/subagent-acp`).
 */
export * from "./AcpServeError.ts"
export * from "./ServeAcp.ts"
