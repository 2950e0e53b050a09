/**
 * @dsh/subagent-a2a: the `a2a` backend. Remote children over the Agent2Agent protocol: any A2A
 * agent by its card URL (`a2a:<name>` from config.toml's `[a2a.agents.<name>]`, or `a2aAgents`).
 */
export * from "./A2aAgentConfig.ts"
export * from "./A2aAgentListing.ts"
export * from "./A2aCard.ts"
export * from "./A2aChildError.ts"
export * from "./A2aContinuation.ts"
export * from "./A2aProvider.ts"
