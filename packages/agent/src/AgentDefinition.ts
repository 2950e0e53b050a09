import { Schema } from "effect"

/** Where an agent definition came from, highest precedence first. */
export const AgentScope = Schema.Literals(["explicit", "project", "extra", "user", "plugin", "builtin", "runtime"])
export type AgentScope = typeof AgentScope.Type

/**
 * How an agent may be used: `primary` only as the main agent (not offered to the `subagent`
 * tool), `subagent` only by delegation, `all` (the default) both. OpenCode's `mode` maps 1:1.
 */
export const AgentMode = Schema.Literals(["primary", "subagent", "all"])
export type AgentMode = typeof AgentMode.Type

/** An agent's settings for the children it starts (see `AgentDefinition.subagentDefaults`). */
export const SubagentDefaults = Schema.Struct({
  /** Below a call's `model` and the child type's own, above the harness's `[subagents] model`. */
  model: Schema.optional(Schema.String),
  /** Allow-only when set: a child of this agent has no tool outside it. */
  tools: Schema.optional(Schema.Array(Schema.String)),
  /** A child of this agent has none of these (deny wins). */
  disallowedTools: Schema.optional(Schema.Array(Schema.String))
})
export type SubagentDefaults = typeof SubagentDefaults.Type

/**
 * A resolved agent: who it is, the system prompt template it runs with, and what it may
 * use. `tools`/`subagents` undefined means "all"; an empty list means "none". A Schema, so a
 * definition that travels (to the cluster runner that hosts the child) keeps every field.
 */
export const AgentDefinition = Schema.Struct({
  /** kebab-case, unique among resolved agents. */
  name: Schema.String,
  description: Schema.String,
  whenToUse: Schema.optional(Schema.String),
  /** The body of the agent file: a template rendered on every prompt build. */
  systemPrompt: Schema.String,
  tools: Schema.optional(Schema.Array(Schema.String)),
  disallowedTools: Schema.optional(Schema.Array(Schema.String)),
  /** Agent types this agent may delegate to through the `subagent` tool. */
  subagents: Schema.optional(Schema.Array(Schema.String)),
  /**
   * The model as the file names it: a spec (`openai:gpt-4.1`), an alias (`sonnet`), a vendor id
   * (`claude-haiku-4-5`), `provider/model`, or `inherit` (the caller's model). Undefined: the
   * harness's default for children, else the caller's. Resolved when the agent runs.
   */
  model: Schema.optional(Schema.String),
  /**
   * `worktree`: each child of this type runs in a git worktree of its own (branch
   * `dsh/<handle>`), so parallel writers never share files. Undefined: the parent's directory.
   */
  isolation: Schema.optional(Schema.Literal("worktree")),
  /**
   * Claude Code's per-agent `hooks` frontmatter, as written (`{ PreToolUse: [{ matcher, hooks:
   * [{ type: "command", command }] }] }`): they apply to this agent's own calls; the harness decodes them.
   */
  hooks: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  /**
   * What this agent gives its own children (frontmatter `subagentDefaults`; openclaw's per-agent
   * `subagents.model` and `tools.subagents.tools`): their default model, and a tool allow/deny
   * list applied to its direct children only (not to their children, unlike `disallowedTools`).
   */
  subagentDefaults: Schema.optional(SubagentDefaults),
  /** Whether this definition may replace a built-in of the same name. */
  override: Schema.Boolean,
  /** Undefined means `all`. */
  mode: Schema.optional(AgentMode),
  scope: AgentScope,
  /** A file path, or `builtin:<name>` / `runtime:<session>`. */
  source: Schema.String
})
export type AgentDefinition = typeof AgentDefinition.Type
