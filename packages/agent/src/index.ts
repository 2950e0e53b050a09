/**
 * @dsh/agent: agent definitions (the type, name limits, prompt templates, tool-policy warnings)
 * and the turn loop (model ↔ tools) that every dsh agent, main or child, runs. Agent files,
 * their discovery and trust are `@dsh/agent-files`.
 */
export * as AgentCatalog from "./AgentCatalog.ts"
export * as AgentDefinition from "./AgentDefinition.ts"
export * as AgentHost from "./AgentHost.ts"
export * as AgentName from "./AgentName.ts"
export * as AgentRunner from "./AgentRunner.ts"
export * as History from "./History.ts"
export * as PolicyWarnings from "./PolicyWarnings.ts"
export * as Template from "./Template.ts"
export * as TranscriptView from "./TranscriptView.ts"
export * as TurnLoop from "./TurnLoop.ts"
