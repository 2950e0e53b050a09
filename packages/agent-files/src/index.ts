/**
 * @dsh/agent-files: agent files and where they come from. Markdown agent files with YAML
 * frontmatter (dsh's own and those written for Claude Code, OpenCode, Gemini CLI, Copilot and
 * Kiro), Kimi agent specs and Codex roles; discovery across scopes with precedence, plugins and
 * project trust; the built-in agents; the template variables of a working directory; and the
 * catalog `dsh run` builds from all of it. The definitions they produce are `@dsh/agent`'s.
 */
export * from "./AgentDefinitionError.ts"
export * from "./AgentFile.ts"
export { MAX_AGENT_FILE_BYTES } from "./AgentFileParts.ts"
export * from "./Builtins.ts"
export * from "./CodexAgentRole.ts"
export * from "./Discovery.ts"
export * from "./FileCatalog.ts"
export * from "./KimiAgentSpec.ts"
export * from "./Plugins.ts"
export * from "./RemoteAgentFile.ts"
export * from "./ResolveAgents.ts"
export * from "./TemplateVars.ts"
export * from "./ToolNames.ts"
export * from "./TrustStore.ts"
