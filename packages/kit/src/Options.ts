import type { LanguageModel } from "@dsh/llm"
import type { AcpAgentConfig } from "@dsh/subagent-acp"
import type { HarnessOptions } from "@dsh/harness"
import type { PermissionPolicy, Tool } from "@dsh/tools"

/** An agent the lead (and `delegate`) may hand work to. */
export interface KitAgent {
  /** What the agent is for: the lead reads it to choose whom to delegate to. */
  readonly description: string
  /** Its system prompt (a template: `${cwd}` is the working directory). */
  readonly instructions: string
  /** Names of the tools it may use (default: every tool given in `tools` of the kit). */
  readonly tools?: ReadonlyArray<string> | undefined
  /** A model spec for this agent only (default: the kit's `model`). */
  readonly model?: string | undefined
  /** Agents it may delegate to in turn (needs `limits.maxDepth` ≥ 2; default none). */
  readonly subagents?: ReadonlyArray<string> | undefined
}

/**
 * The agents children run as: a record by name (kebab-case), or a list of records and
 * directories of Markdown agent files (`".claude/agents"`, relative to `cwd`; every file there
 * must load). A later entry's agent replaces an earlier one of the same name.
 */
export type KitAgents = Readonly<Record<string, KitAgent>> | ReadonlyArray<string | Readonly<Record<string, KitAgent>>>

/** The main agent of `kit.prompt`. */
export interface KitMain {
  readonly instructions?: string | undefined
  /** Names of the tools it may use besides delegation (default: all of the kit's `tools`). */
  readonly tools?: ReadonlyArray<string> | undefined
}

/**
 * Where sessions live: `"memory"` (default: gone with the process), `{ dir }` (dsh's file
 * store: `<dir>/sessions/<id>/…`, continuable after a restart) or `{ postgres: url }`
 * (`@dsh/session-pg`, an optional peer loaded only then).
 */
export type KitStore = "memory" | { readonly dir: string } | { readonly postgres: string }

export interface KitLimits {
  /** Children running at once; the rest wait. Default 8. */
  readonly maxConcurrent?: number | undefined
  /** Per child run, in seconds; 0 for none. Default 600. */
  readonly timeoutSeconds?: number | undefined
  /** How deep children may delegate: 1 (default) lets only the lead delegate. */
  readonly maxDepth?: number | undefined
  /** Children per session. Default 200. */
  readonly maxChildren?: number | undefined
}

/**
 * An AI SDK language model, as far as the kit needs to know one (`LanguageModelV2`–`V4` of
 * `@ai-sdk/provider` all fit): described by shape, so the kit's types need no AI SDK installed.
 */
export interface AiSdkModelLike {
  readonly specificationVersion: "v2" | "v3" | "v4"
  readonly provider: string
  readonly modelId: string
  readonly doStream: (options: never) => PromiseLike<unknown>
}

export interface CreateSubagentsOptions {
  /**
   * A dsh model spec (`scripted:<file>`, `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`),
   * an AI SDK language model (`openai("gpt-4.1")`, `createOpenAICompatible(…)(id)`: bridged by
   * `@dsh/llm-ai-sdk`), or a dsh `LanguageModelShape` (e.g. `makeScriptedModel(script)`).
   */
  readonly model: string | LanguageModel.LanguageModelShape | AiSdkModelLike
  /** The agents children run as (see `KitAgents`). */
  readonly agents: KitAgents
  /** The lead of `kit.prompt`; default a generic lead that delegates to `agents`. */
  readonly main?: KitMain | undefined
  /**
   * The backends children run on. Default: fresh in-process children (`spawn`) and forks
   * (`fork`, seeded with the lead's conversation). Add out-of-process ones, e.g.
   * `makeAcpBackend` of `@dsh/subagent-acp`, here.
   */
  readonly backends?: ReadonlyArray<HarnessOptions.BackendInput> | undefined
  /**
   * ACP agents children may run as (`{ name, description, command, args?, passEnv?, env? }`:
   * Claude Code, Gemini CLI, `dsh acp`, …), each the agent type `acp:<name>`, added to
   * `backends`. Their processes run under a scrubbed environment and end with the kit.
   */
  readonly acp?: ReadonlyArray<AcpAgentConfig.AcpAgentConfig> | undefined
  /** dsh tools every agent may use (before each agent's `tools` narrows them). */
  readonly tools?: ReadonlyArray<Tool.AnyTool> | undefined
  readonly store?: KitStore | undefined
  readonly limits?: KitLimits | undefined
  /** Permission rules for every agent of the tree (`{ mode, allow, ask, deny }`); default everything allowed. */
  readonly permissions?: PermissionPolicy.PermissionSettings | undefined
  /** The agents' working directory. Default `process.cwd()`. */
  readonly cwd?: string | undefined
}
