/**
 * @dsh/agent-files: agent files and where they come from. Markdown agent files with YAML
 * frontmatter (dsh's own and those written for Claude Code, OpenCode, Gemini CLI, Copilot and
 * Kiro), Kimi agent specs and Codex roles; discovery across scopes with precedence, plugins and
 * project trust; the built-in agents; the template variables of a working directory; and the
 * catalog `dsh run` builds from all of it. The definitions they produce are `@dsh/agent`'s.
 */
export * as AgentDefinitionError from "./AgentDefinitionError.ts"
export * as AgentFile from "./AgentFile.ts"
export * as AgentFileParts from "./AgentFileParts.ts"
export * as Builtins from "./Builtins.ts"
export * as CodexAgentRole from "./CodexAgentRole.ts"
export * as Discovery from "./Discovery.ts"
export * as FileCatalog from "./FileCatalog.ts"
export * as KimiAgentSpec from "./KimiAgentSpec.ts"
export * as Plugins from "./Plugins.ts"
export * as RemoteAgentFile from "./RemoteAgentFile.ts"
export * as ResolveAgents from "./ResolveAgents.ts"
export * as TemplateVars from "./TemplateVars.ts"
export * as ToolNames from "./ToolNames.ts"
export * as TrustStore from "./TrustStore.ts"
