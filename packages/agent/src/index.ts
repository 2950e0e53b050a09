/**
 * @dsh/agent: agent definitions (the type, name limits, prompt templates, tool-policy warnings)
 * and the turn loop (model ↔ tools) that every dsh agent, main or child, runs. Agent files,
 * their discovery and trust are `@dsh/agent-files`.
 */
export * from "./AgentCatalog.ts"
export * from "./AgentDefinition.ts"
export * from "./AgentHost.ts"
export * from "./AgentName.ts"
export * from "./AgentRunner.ts"
export * from "./History.ts"
export * from "./PolicyWarnings.ts"
export * from "./Template.ts"
export * from "./TranscriptView.ts"
export * from "./TurnLoop.ts"
