/**
 * @dsh/subagent-a2a: the `a2a` backend. Remote children over the Agent2Agent protocol: any A2A
 * agent by its card URL (`a2a:<name>` from config.toml's `[a2a.agents.<name>]`, or `a2aAgents`).
 */
export * as A2aAgentConfig from "./A2aAgentConfig.ts"
export * as A2aAgentListing from "./A2aAgentListing.ts"
export * as A2aCard from "./A2aCard.ts"
export * as A2aChildError from "./A2aChildError.ts"
export * as A2aContinuation from "./A2aContinuation.ts"
export * as A2aProvider from "./A2aProvider.ts"
