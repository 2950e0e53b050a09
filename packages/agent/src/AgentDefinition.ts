/** Where an agent definition came from, highest precedence first. */
export type AgentScope = "explicit" | "project" | "extra" | "user" | "plugin" | "builtin" | "runtime"

/**
 * How an agent may be used: `primary` only as the main agent (not offered to the `subagent`
 * tool), `subagent` only by delegation, `all` (the default) both. OpenCode's `mode` maps 1:1.
 */
export type AgentMode = "primary" | "subagent" | "all"

/**
 * A resolved agent: who it is, the system prompt template it runs with, and what it may
 * use. `tools`/`subagents` undefined means "all"; an empty list means "none".
 */
export interface AgentDefinition {
  /** kebab-case, unique among resolved agents. */
  readonly name: string
  readonly description: string
  readonly whenToUse?: string | undefined
  /** The body of the agent file: a template rendered on every prompt build. */
  readonly systemPrompt: string
  readonly tools?: ReadonlyArray<string> | undefined
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /** Agent types this agent may delegate to through the `subagent` tool. */
  readonly subagents?: ReadonlyArray<string> | undefined
  /**
   * The model as the file names it: a spec (`openai:gpt-4.1`), an alias (`sonnet`), a vendor id
   * (`claude-haiku-4-5`), `provider/model`, or `inherit` (the caller's model). Undefined: the
   * harness's default for children, else the caller's. Resolved when the agent runs.
   */
  readonly model?: string | undefined
  /**
   * `worktree`: each child of this type runs in a git worktree of its own (branch
   * `dsh/<handle>`), so parallel writers never share files. Undefined: the parent's directory.
   */
  readonly isolation?: "worktree" | undefined
  /**
   * Claude Code's per-agent `hooks` frontmatter, as written (`{ PreToolUse: [{ matcher, hooks:
   * [{ type: "command", command }] }] }`): they apply to this agent's own calls; the harness decodes them.
   */
  readonly hooks?: Readonly<Record<string, unknown>> | undefined
  /**
   * What this agent gives its own children (frontmatter `subagentDefaults`; openclaw's per-agent
   * `subagents.model` and `tools.subagents.tools`): their default model, and a tool allow/deny
   * list applied to its direct children only (not to their children, unlike `disallowedTools`).
   */
  readonly subagentDefaults?: SubagentDefaults | undefined
  /** Whether this definition may replace a built-in of the same name. */
  readonly override: boolean
  /** Undefined means `all`. */
  readonly mode?: AgentMode | undefined
  readonly scope: AgentScope
  /** A file path, or `builtin:<name>` / `runtime:<session>`. */
  readonly source: string
}

/** An agent's settings for the children it starts (see `AgentDefinition.subagentDefaults`). */
export interface SubagentDefaults {
  /** Below a call's `model` and the child type's own, above the harness's `[subagents] model`. */
  readonly model?: string | undefined
  /** Allow-only when set: a child of this agent has no tool outside it. */
  readonly tools?: ReadonlyArray<string> | undefined
  /** A child of this agent has none of these (deny wins). */
  readonly disallowedTools?: ReadonlyArray<string> | undefined
}
