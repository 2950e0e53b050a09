import type { AgentDefinition } from "@dsh/agent"
import type { AgentEvent, Message, RegistryError, RunStatus, Usage } from "@dsh/core"
import type { LanguageModelShape, LlmError } from "@dsh/llm"
import type { ChildStore } from "@dsh/session"
import type { AnyTool } from "@dsh/tools"
import type { Effect } from "effect"

/** What a parent asks for when it delegates. */
export interface SpawnRequest {
  readonly prompt: string
  /** A short (3–5 word) label for lists and logs. */
  readonly description: string
  /** The agent type (`coder`, `explore`, `acp:dsh`, …). */
  readonly agent: string
  /** A model spec overriding the type's and the parent's model. */
  readonly model?: string | undefined
  readonly thinking?: "off" | "low" | "medium" | "high" | undefined
  readonly timeoutSeconds?: number | undefined
  /** Return at once with `{status: "accepted"}`; the outcome is announced to the parent later. */
  readonly background?: boolean | undefined
  /** A JSON Schema the child's `report` JSON must satisfy (continuable children). */
  readonly resultSchema?: Readonly<Record<string, unknown>> | undefined
}

/** A delegation target: an agent definition plus the provider that runs it. */
export interface AgentType {
  readonly name: string
  readonly description: string
  readonly provider: string
  readonly definition: AgentDefinition
}

/** The agent that delegates, as the child's runtime needs to know it. */
export interface ParentInfo {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModelShape
  /** Agent types this parent may delegate to (undefined = all). */
  readonly allowedTypes?: ReadonlyArray<string> | undefined
  /** The parent's completed conversation, for providers that fork it. */
  readonly history?: Effect.Effect<ReadonlyArray<Message>> | undefined
  /** The parent's live event sink: `subagent-start`/`subagent-end` go here. */
  readonly onEvent?: ((event: AgentEvent) => Effect.Effect<void>) | undefined
  /** The parent's rendered system prompt, for providers that fork it. */
  readonly systemPrompt?: string | undefined
  /** The parent's own tool policy, which a fork keeps. */
  readonly toolPolicy?: { readonly tools?: ReadonlyArray<string> | undefined; readonly disallowedTools?: ReadonlyArray<string> | undefined } | undefined
}

/** How a child run ended. Status comes from the runtime, never from model text. */
export interface ChildOutcome {
  readonly status: RunStatus
  /** The child's final message (or the result it reported). */
  readonly output: string
  readonly usage: Usage
  /** Why it failed, stderr tails, protocol faults: what a parent needs to decide what next. */
  readonly notes?: string | undefined
}

/** The result a parent receives. Every result carries the child's handle, failures included. */
export interface SubagentResult extends ChildOutcome {
  readonly handle: string
  readonly runId: string
  readonly agent: string
  readonly provider: string
  readonly cost?: number | undefined
  readonly durationMs: number
  /** Where the child's transcript lives (a path for the file store). */
  readonly transcript?: string | undefined
}

export type DescriptorStatus = RunStatus | "queued" | "running"

/** What `state.json` keeps of every child, so lists, logs and resumes survive a restart. */
export interface SubagentDescriptor {
  readonly handle: string
  readonly agent: string
  readonly provider: string
  readonly parent: string
  readonly depth: number
  readonly status: DescriptorStatus
  readonly description: string
  readonly runId: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly usage: Usage
  readonly transcript?: string | undefined
  /** A provider's opaque, versioned continuation envelope; the service never looks inside. */
  readonly continuation?: { readonly provider: string; readonly version: number; readonly data: unknown } | undefined
  readonly lastResult?: string | undefined
  /** Whether the latest run was a background run (its outcome is announced). */
  readonly background?: boolean | undefined
}

/** What a background run returns at once. */
export interface AcceptedRun {
  readonly status: "accepted"
  readonly runId: string
  readonly handle: string
}

/** `tasks/<runId>.json`: a background run's lifecycle, written before anything is announced. */
export interface TaskRecord {
  readonly runId: string
  readonly handle: string
  readonly agent: string
  readonly parent: string
  readonly status: RunStatus | "running"
  readonly createdAt: string
  readonly endedAt?: string | undefined
  readonly result?: SubagentResult | undefined
  /** Set once the announcement reached the parent; never announced twice. */
  readonly delivered: boolean
}

/** What a provider's `start` receives. */
export interface StartContext {
  readonly handle: string
  readonly runId: string
  readonly request: SpawnRequest
  readonly type: AgentType
  readonly parent: ParentInfo
  /** The child's persisted data, when the session has a store (in-process children need it). */
  readonly store: ChildStore | undefined
  /** The child's own live events (its transcript is the provider's business). */
  readonly onEvent: (event: AgentEvent) => Effect.Effect<void>
  /** Tools and nested delegation for the child's own context, as the harness decides. */
  readonly childContext: ChildContextFactory
  /** Resolves a model spec (a request's or an agent type's model override). */
  readonly resolveModel: (spec: string) => Effect.Effect<LanguageModelShape, LlmError | RegistryError>
  /**
   * Stores the provider's opaque continuation data (e.g. an out-of-process child's session
   * id) in the child's descriptor, versioned; `continue` gets it back as `continuation`.
   */
  readonly saveContinuation: (version: number, data: unknown) => Effect.Effect<void>
  /** What `saveContinuation` stored for this child, on `continue`; undefined on `start`. */
  readonly continuation?: { readonly version: number; readonly data: unknown } | undefined
  /**
   * Messages sent to this child while it runs, in order, taken once each: a continuable
   * provider delivers them at the child's next step.
   */
  readonly takeMessages: Effect.Effect<ReadonlyArray<string>>
}

/**
 * A harness decides what exists in each child's context: its tools, including a
 * `subagent` tool of its own when nesting is allowed at that depth.
 */
export type ChildContextFactory = (child: {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModelShape
  readonly type: AgentType
  /** Present for continuable children: hands a result to the parent (the `report` tool). */
  readonly report?: ((result: ReportedResult) => Effect.Effect<void, string>) | undefined
  /** The JSON Schema the parent asked the report to satisfy, if any. */
  readonly resultSchema?: Readonly<Record<string, unknown>> | undefined
}) => Effect.Effect<ChildContext>

/** What a continuable child hands back with `report`; it stays continuable afterwards. */
export interface ReportedResult {
  readonly text: string
  readonly json?: unknown
}

/** A child's own context: the tools that exist there and its rendered system prompt. */
export interface ChildContext {
  /** Tools that exist in the child's context, before its agent policy narrows them. */
  readonly tools: ReadonlyArray<AnyTool>
  readonly systemPrompt: string
}

/**
 * A backend. One-shot providers implement `start`; continuable providers also implement
 * `continue`. Interrupting `start` is how a child is cancelled: providers must stop
 * everything they started (fibers, processes) when interrupted.
 */
export interface SubagentProvider {
  readonly name: string
  readonly description: string
  readonly start: (context: StartContext) => Effect.Effect<ChildOutcome>
  readonly continue?: ((context: StartContext & { readonly message: string }) => Effect.Effect<ChildOutcome>) | undefined
}
