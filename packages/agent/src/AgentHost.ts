import type { Tool, Toolbox } from "@dsh/tools"
import { type Events, type Messages, Usage } from "@dsh/core"
import { Context, type Effect, Schema, type Scope, Struct } from "effect"

/**
 * Why a host operation was refused or failed. `InvalidInput` and `NotFound` are the caller's to
 * fix; `Busy` means another process runs the session; `Unsupported` is an operation this host
 * does not offer (e.g. continuing children).
 */
export class HostError extends Schema.TaggedError<HostError>()("HostError", {
  reason: Schema.Literals(["NotFound", "InvalidInput", "Busy", "Unsupported", "Failed"]),
  message: Schema.String
}) {}

/** A session as a host reports it (and the SDK's `SessionInfo`, which leaves out `error`). */
export const HostSessionInfo = Schema.Struct({
  id: Schema.String,
  /** Why the session cannot be read (a corrupt or missing state file); the other fields are then empty. */
  error: Schema.optional(Schema.String),
  agent: Schema.String,
  cwd: Schema.String,
  model: Schema.String,
  status: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type HostSessionInfo = typeof HostSessionInfo.Type

/**
 * Who a child is in its session's tree: its descriptor, its `meta.json` and a host's summary of
 * it all say it (`Records.SubagentDescriptor`, `Records.ChildMeta`, `HostChildSummary`).
 */
export const ChildIdentity = Schema.Struct({ handle: Schema.String, agent: Schema.String, provider: Schema.String, parent: Schema.String, depth: Schema.Number })
export type ChildIdentity = typeof ChildIdentity.Type

/**
 * A child as a host reports it (the CLI contract's `subagents list` fields; the SDK's
 * `ChildSummary`): its identity, with the handle as `name`.
 */
export const HostChildSummary = Schema.Struct({
  name: Schema.String,
  ...Struct.omit(ChildIdentity.fields, ["handle"]),
  status: Schema.String,
  /** Of its latest run. */
  usage: Usage.Usage,
  /** What its latest run cost in US dollars, where pricing is configured. */
  cost: Schema.optional(Schema.Number),
  /** The model its latest run used (`provider:model`). */
  model: Schema.optional(Schema.String),
  /** Set when the child's transcript is in the session's archive (it stays continuable). */
  archived: Schema.optional(Schema.Boolean)
})
export type HostChildSummary = typeof HostChildSummary.Type

export interface HostPromptOptions {
  readonly sessionId: string
  readonly prompt: string
  /** The prompt as content parts (text, images, files); `prompt` stays its text, for text-only readers. */
  readonly promptParts?: ReadonlyArray<Messages.ContentPart> | undefined
  /** A model spec the session uses from this prompt on (checked before anything runs). */
  readonly model?: string | undefined
  /** The main agent's live events (text deltas, tool calls, subagent start/end, …). */
  readonly onEvent?: ((event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  /** Every descendant's live events, tagged with its handle. */
  readonly onChildEvent?: ((handle: string, event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  readonly maxSteps?: number | undefined
  /**
   * Completes when the caller wants the prompt stopped (a signal, a client's cancel): the turn
   * and every descendant are stopped and the prompt answers `cancelled` with what it had (usage,
   * the agent's last words). Interrupting `prompt` itself stops the same, without an answer.
   */
  readonly cancel?: Effect.Effect<void> | undefined
  /**
   * Tools the main agent has for this prompt on top of the harness's own (e.g. the MCP servers
   * an ACP client gave its session); its agent policy and the approval rules apply to them.
   */
  readonly tools?: ReadonlyArray<Tool.AnyTool> | undefined
}

export interface HostPromptResult {
  readonly sessionId: string
  readonly status: Events.RunStatus
  readonly result: string
  /** The main agent's own model calls in this prompt (children have theirs in `subagents`). */
  readonly usage: Usage.Usage
  /** What `usage` cost in US dollars, where pricing is configured for the model. */
  readonly cost?: number | undefined
  readonly subagents: ReadonlyArray<HostChildSummary>
  readonly error?: string | undefined
}

/**
 * A dsh agent with its sessions, as a protocol server sees it (`dsh acp`, `dsh sdk`):
 * create or load a session, run prompts (interrupting the effect cancels the turn and
 * every descendant), inspect children. `@dsh/harness` builds one from a harness description;
 * tests may fake it.
 * Tool approval follows the `Approval` reference of the calling fiber.
 */
export interface AgentHostShape {
  readonly createSession: (options: {
    readonly cwd: string
    readonly agent?: string | undefined
    readonly model?: string | undefined
    /** Keys of the harness's own kept in the session's state (e.g. an agent file path). */
    readonly extra?: Readonly<Record<string, unknown>> | undefined
  }) => Effect.Effect<HostSessionInfo, HostError>
  readonly loadSession: (id: string) => Effect.Effect<HostSessionInfo & { readonly records: ReadonlyArray<Events.WireRecord> }, HostError>
  readonly listSessions: Effect.Effect<ReadonlyArray<HostSessionInfo>, HostError>
  /**
   * Rebuilds the state of a session that lost it (its transcript is there) from what is on disk,
   * with this host's default agent, `model` (default: the host's) and `cwd`; `notes` says what was
   * assumed or could not be recovered.
   * Optional: a host whose store cannot lose state alone does not offer it.
   */
  readonly recoverSession?: (options: { readonly sessionId: string; readonly cwd: string; readonly model?: string | undefined }) => Effect.Effect<
    { readonly session: HostSessionInfo; readonly children: number; readonly notes: ReadonlyArray<string> },
    HostError
  >
  readonly prompt: (options: HostPromptOptions) => Effect.Effect<HostPromptResult, HostError>
  readonly listChildren: (sessionId: string) => Effect.Effect<ReadonlyArray<HostChildSummary>, HostError>
  /**
   * Continues a child by handle and returns its reply. A host without a continuation manager
   * fails with `Unsupported` (protocol servers pass that on).
   */
  readonly sendToChild: (options: HostSendOptions) => Effect.Effect<HostChildReply, HostError>
  /** Stops a child (or `all`) and its descendants, wherever they run; returns the handles stopped. */
  readonly stopChild: (options: { readonly sessionId: string; readonly handle: string }) => Effect.Effect<ReadonlyArray<string>, HostError>
  /**
   * Moves a running foreground child (or `all`: the main agent's) to the background: the
   * call waiting for it returns `{status: "accepted", handle}` at once and its outcome is
   * announced to its parent later, exactly once. Only in the process that runs the session;
   * returns the handles detached. Optional: a host without background children omits it.
   */
  readonly detachChild?: ((options: { readonly sessionId: string; readonly handle: string }) => Effect.Effect<ReadonlyArray<string>, HostError>) | undefined
  /**
   * The session's main agent for a caller that makes its tool calls itself instead of running
   * its model (`dsh mcp`: the MCP client is the parent). Holds the session's runtime (and its
   * lease) for the calling scope. Optional: a host that cannot lend its main agent omits it.
   */
  readonly openMain?: ((options: HostOpenMainOptions) => Effect.Effect<HostMainAgent, HostError, Scope.Scope>) | undefined
}

export interface HostOpenMainOptions {
  readonly sessionId: string
  /** Tools the main agent has on top of the harness's own (its policy and the rules apply). */
  readonly tools?: ReadonlyArray<Tool.AnyTool> | undefined
  /** Every descendant's live events, tagged with its handle. */
  readonly onChildEvent?: ((handle: string, event: Events.AgentEvent) => Effect.Effect<void>) | undefined
}

/** A session's main agent lent to a caller: its toolbox (policy applied), under the session's rules. */
export interface HostMainAgent {
  readonly sessionId: string
  readonly cwd: string
  readonly toolbox: Toolbox.Toolbox
  /** Runs `effect` (a toolbox call) as the main agent's turns run: the session's permission rules, its disallowed tools. */
  readonly governed: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A child's transcript records (its `wire.jsonl`). */
  readonly childTranscript: (handle: string) => Effect.Effect<ReadonlyArray<Events.WireRecord>, HostError>
}

export interface HostSendOptions {
  readonly sessionId: string
  readonly handle: string
  readonly message: string
  /** The live events of the child and its descendants, tagged with their handles. */
  readonly onChildEvent?: ((handle: string, event: Events.AgentEvent) => Effect.Effect<void>) | undefined
}

/** A continued child's answer; `queued` when it was running and gets the message at its next step. */
export interface HostChildReply {
  readonly handle: string
  readonly status: Events.RunStatus | "queued"
  readonly result: string
  readonly usage: Usage.Usage
  readonly cost?: number | undefined
  readonly notes?: string | undefined
}

export class AgentHost extends Context.Service<AgentHost, AgentHostShape>()("@dsh/agent/AgentHost") {}
