/**
 * Agent definitions: Markdown agent files with YAML frontmatter (dsh's own and those written for
 * Claude Code, OpenCode, Gemini CLI and Copilot), discovery across scopes with precedence and
 * project trust, the built-in agents, and system prompt templates.
 */
export * from "./AgentDefinitionError.ts"
export * from "./AgentFile.ts"
export * from "./AgentName.ts"
export * from "./Builtins.ts"
export * from "./CodexAgentRole.ts"
export * from "./Discovery.ts"
export * from "./KimiAgentSpec.ts"
export * from "./Plugins.ts"
export * from "./PolicyWarnings.ts"
export * from "./RemoteAgentFile.ts"
export * from "./ResolveAgents.ts"
export * from "./Template.ts"
export * from "./TemplateVars.ts"
export * from "./ToolNames.ts"
export * from "./TrustStore.ts"
