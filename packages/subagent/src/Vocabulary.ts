import type { AgentDefinition, TurnLoop } from "@dsh/agent"
import type { Events, Messages, Registry, Usage } from "@dsh/core"
import type { LanguageModel, LlmError } from "@dsh/llm"
import type { SessionStore } from "@dsh/session"
import type { Tool } from "@dsh/tools"
import type { Effect, Schema, Scope } from "effect"
import type { SubagentLimitsShape } from "./Limits.ts"
import type { ThinkingLevel } from "./Records.ts"

export type { ChildMeta, CleanupMode, ContinuationEnvelope, DescriptorStatus, SubagentDescriptor, SubagentResult, TaskRecord } from "./Records.ts"

/** What a parent asks for when it delegates. */
export interface SpawnRequest {
  readonly prompt: string
  /** A short (3–5 word) label for lists and logs. */
  readonly description: string
  /** The agent type (`coder`, `explore`, `acp:dsh`, …). */
  readonly agent: string
  /**
   * A model spec (or alias, or `inherit`) overriding the agent type's, the tree's default for
   * children and the parent's model. One that does not resolve is skipped with a note.
   */
  readonly model?: string | undefined
  /** How hard the child's model should think; adapters map it (`reasoning_effort`, a thinking budget). */
  readonly thinking?: ThinkingLevel | undefined
  /** Wall-clock limit of this run; 0 means none. Default: the tree's limit. */
  readonly timeoutSeconds?: number | undefined
  /** Return at once with `{status: "accepted"}`; the outcome is announced to the parent later. */
  readonly background?: boolean | undefined
  /** A JSON Schema the child's `report` JSON must satisfy (continuable children). */
  readonly resultSchema?: Readonly<Record<string, unknown>> | undefined
  /**
   * `delete`: move the child's transcript into the session's archive as soon as its outcome was
   * announced (it stays listable and continuable); `keep` (default): archive it after the tree's
   * `SubagentArchiving.afterMinutes`.
   */
  readonly cleanup?: "keep" | "delete" | undefined
  /**
   * `worktree`: the child runs in a new git worktree of the working directory's repository
   * (branch `dsh/<handle>`), removed when it ends unchanged and kept (named in the result's
   * notes and the descriptor) when it has changes. The agent type's `isolation` applies too.
   */
  readonly isolation?: "worktree" | undefined
}

/** A delegation target: an agent definition plus the provider that runs it. */
export interface AgentType {
  readonly name: string
  readonly description: string
  readonly provider: string
  readonly definition: AgentDefinition.AgentDefinition
}

/**
 * The agent that delegates, as the child's runtime needs to know it. Its definition decides
 * what it may delegate to (`subagents`: undefined = every type, `[]` = none), enforced by the
 * service; a fork keeps its tools policy.
 */
export interface ParentInfo {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModel.LanguageModelShape
  readonly definition: AgentDefinition.AgentDefinition
  /** The parent's conversation so far, for providers that fork it (the `subagent` tool fills it). */
  readonly history?: Effect.Effect<ReadonlyArray<Messages.Message>> | undefined
  /** The parent's live event sink: `subagent-start`/`subagent-end` go here (the `subagent` tool fills it). */
  readonly onEvent?: ((event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  /** The parent's rendered system prompt, for providers that fork it. */
  readonly systemPrompt?: string | undefined
}

/**
 * The caller of a delegation tool as it is at the moment of the call: the turn it is in
 * decides where the child's start/end events go and what a fork starts from.
 */
export const callerOf = (parent: ParentInfo, context: Tool.ToolContext): ParentInfo =>
  context.turn === undefined ? parent : {
    ...parent,
    onEvent: context.turn.emit,
    history: context.turn.conversation,
    systemPrompt: context.turn.systemPrompt
  }

/** How a child run ended. Status comes from the runtime, never from model text. */
export interface ChildOutcome {
  readonly status: Events.RunStatus
  /** The child's final message (or the result it reported); what it said so far when it was stopped. */
  readonly output: string
  readonly usage: Usage.Usage
  /**
   * What the run cost in US dollars when the child itself said so (a vendor agent's own
   * accounting); it wins over the harness's pricing of `usage`.
   */
  readonly cost?: number | undefined
  /** Why it failed, stderr tails, protocol faults: what a parent needs to decide what next. */
  readonly notes?: string | undefined
  /** A background run's announce step reply, when the driver ran one (see `ANNOUNCE_PROMPT`). */
  readonly announcement?: string | undefined
}

/** What a background run returns at once. */
export interface AcceptedRun {
  readonly status: "accepted"
  readonly runId: string
  readonly handle: string
}

/** One turn of an agent, given its prompt and what to add before each model call. */
export type TurnRunner<E> = (prompt: string, beforeStep: Effect.Effect<ReadonlyArray<Messages.Message>>) => Effect.Effect<TurnLoop.TurnResult, E>

/** The model a child runs with, as the service chose it (see `SubagentTreeOptions.childModel`). */
export interface ChildModel {
  /** `provider:model`, as its usage events name it; what an out-of-process child is asked to use. */
  readonly spec: string
  readonly model: LanguageModel.LanguageModelShape
}

/** What a provider's `start` receives. */
export interface StartContext {
  readonly handle: string
  readonly runId: string
  readonly request: SpawnRequest
  readonly type: AgentType
  readonly parent: ParentInfo
  /**
   * The model chosen for this run: the request's override, else the agent type's `model`, else
   * the tree's default for children, else the parent's (`inherit` stops at the parent's); a
   * continued child keeps the model it ran with. Specs that did not resolve were skipped, with a
   * note in the result.
   */
  readonly model: ChildModel
  /** The child's persisted data, when the session has a store (in-process children need it). */
  readonly store: SessionStore.ChildStore | undefined
  /** The child's own live events (its transcript is the provider's business). */
  readonly onEvent: (event: Events.AgentEvent) => Effect.Effect<void>
  /** Tools and nested delegation for the child's own context, as the harness decides. */
  readonly childContext: (child: ChildSpec) => Effect.Effect<ChildContext>
  /** The tree's limits (depth, children, concurrency), e.g. for a child that delegates in its own process. */
  readonly limits: SubagentLimitsShape
  /** The id of the session the child belongs to; absent for a tree without a session (memory only). */
  readonly sessionId: string | undefined
  /**
   * Lives as long as the session tree: what a provider keeps beyond one run (a warm process
   * waiting for the next message) is forked from it and ends with it. One tree, one scope, so
   * it also tells a provider's per-tree state apart.
   */
  readonly lifetime: Scope.Scope
  /** Resolves a model spec (aliases and vendor ids included), for providers that need another model. */
  readonly resolveModel: (spec: string) => Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError>
  /**
   * Stores the provider's continuation data (e.g. an out-of-process child's session id) in the
   * child's descriptor under the provider's declared version; `continue` gets it back decoded.
   */
  readonly saveContinuation: (data: unknown) => Effect.Effect<void>
  /** On `continue`: what `saveContinuation` stored, decoded with the provider's Schema. */
  readonly continuation?: unknown
  /**
   * Messages sent to this child while it runs, in order, taken once each: a continuable
   * provider delivers them at the child's next step (`runTurns` does this by itself).
   */
  readonly takeMessages: Effect.Effect<ReadonlyArray<string>>
  /**
   * For a provider whose child runs elsewhere (another process or machine): from now on,
   * messages sent to the child during this Activation go to `deliver` (those queued so far
   * first) instead of waiting for `takeMessages`.
   */
  readonly forwardMessages: (deliver: (message: string) => Effect.Effect<void>) => Effect.Effect<void>
  /**
   * Runs the child's turns as continuation and background delegation need: messages sent to
   * it and announcements of its own background children before each model call, then further
   * turns for messages that came too late and for outcomes still to come, until all settled.
   * In-process drivers run every child through it.
   */
  readonly runTurns: <E>(prompt: string, turn: TurnRunner<E>) => Effect.Effect<TurnLoop.TurnResult, E>
}

/** The child a context is built for. */
export interface ChildSpec {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModel.LanguageModelShape
  readonly type: AgentType
  /** The agent that started the child: its `subagentDefaults` narrow the child's tools. */
  readonly requester?: AgentDefinition.AgentDefinition | undefined
  /** Present for continuable children: hands a result to the parent (the `report` tool). */
  readonly report?: ((result: ReportedResult) => Effect.Effect<void, string>) | undefined
  /** The JSON Schema the parent asked the report to satisfy, if any. */
  readonly resultSchema?: Readonly<Record<string, unknown>> | undefined
}

/** What a continuable child hands back with `report`; it stays continuable afterwards. */
export interface ReportedResult {
  readonly text: string
  readonly json?: unknown
}

/** A child's own context: the tools that exist there and its rendered system prompt. */
export interface ChildContext {
  /** Tools that exist in the child's context, before its agent policy narrows them. */
  readonly tools: ReadonlyArray<Tool.AnyTool>
  readonly systemPrompt: string
  /**
   * What the child's profile says that can never take effect (a tool pattern no tool matches):
   * the driver writes each as a warning `notice` at the top of the child's transcript, as the
   * main agent's are written to its own.
   */
  readonly warnings?: ReadonlyArray<string> | undefined
}

/**
 * A backend as a harness registers it: its provider, plus the agent types of its own it adds
 * (`fork`, `acp:<name>`, `sdk:dsh`). Agent definitions a harness delegates to run on its
 * default provider (`spawn`) and are not listed here.
 */
export interface SubagentBackend {
  readonly provider: SubagentProvider
  readonly types: ReadonlyArray<AgentType>
}

/** A provider's continuation data: its version and the Schema the service decodes it with. */
export interface ContinuationSpec {
  readonly version: number
  readonly schema: Schema.Decoder<unknown>
}

/**
 * A backend. One-shot providers implement `start`; continuable providers also implement
 * `continue`. Interrupting `start` is how a child is cancelled: providers must stop
 * everything they started (fibers, processes) when interrupted.
 */
export interface SubagentProvider {
  /** The provider contract it implements (`SPECIFICATION_VERSION`); another version is refused. */
  readonly specificationVersion: "v1"
  readonly name: string
  readonly description: string
  readonly start: (context: StartContext) => Effect.Effect<ChildOutcome>
  readonly continue?: ((context: StartContext & { readonly message: string }) => Effect.Effect<ChildOutcome>) | undefined
  /**
   * Its children's own turn loops run `SubagentStop` hooks (in process, where a blocking hook can
   * send the child back to work): the service does not run them again when the run ends.
   */
  readonly runsSubagentStop?: boolean | undefined
  /** Its children always run on their parent's model (a fork): the service chooses none for them. */
  readonly keepsParentModel?: boolean | undefined
  /**
   * The continuation data this provider saves. With it, the service refuses a `continue` whose
   * saved envelope is missing, of another provider or version, or does not decode
   * (`InvalidContinuation`), so the provider only ever sees valid data.
   */
  readonly continuation?: ContinuationSpec | undefined
  /**
   * Whether a message can continue this idle child now (e.g. its process is still warm, or
   * its agent can reload its session); fails with the reason it cannot, which the service
   * answers the sender with as `Unsupported`. Asked after the continuation decoded.
   */
  readonly checkContinue?: ((check: ContinueCheck) => Effect.Effect<void, string>) | undefined
}

/** What `SubagentProvider.checkContinue` is asked about. */
export interface ContinueCheck {
  readonly handle: string
  /** The session tree's `StartContext.lifetime`. */
  readonly lifetime: Scope.Scope
  /** The provider's saved continuation, decoded with its Schema. */
  readonly continuation: unknown
}
