/**
 * @dsh/agent: agent definitions and the turn loop (model ↔ tools) that every dsh agent,
 * main or child, runs.
 */
export * from "./AgentCatalog.ts"
export * from "./AgentDefinition.ts"
export * from "./AgentHost.ts"
export * from "./AgentRunner.ts"
export * from "./History.ts"
export * from "./TranscriptView.ts"
export * from "./TurnLoop.ts"
export * from "./definitions/index.ts"
