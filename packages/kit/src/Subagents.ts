import type { Events } from "@dsh/core"
import type { InferOutput, StandardSchemaV1 } from "./ResultSchema.ts"
import type { Announcement, ChildEvent, ChildEventName, ChildInfo, ChildResult, ChildRun, PromptResult, Queued, TypedChildResult } from "./Results.ts"
import type { makeEffectAiTools } from "./EffectAiTools.ts"
import type { KitToolDefinition } from "./ToolDefinition.ts"

/** What every call may take: an `AbortSignal` that stops it (and the children it started). */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined
}

export interface DelegateBase extends CallOptions {
  /** The agent's name (a key of `agents`, or `fork`). */
  readonly agent: string
  readonly prompt: string
  readonly description?: string | undefined
  readonly timeoutSeconds?: number | undefined
}

/** The kit: dsh's subagents behind Promises. One per app; `close()` it (or `await using`). */
export interface Subagents extends AsyncDisposable {
  /** The lead's own loop on `text`: it may delegate to every agent; resolves when it and its background children are done. */
  prompt(text: string, options?: CallOptions & { readonly sessionId?: string | undefined }): Promise<PromptResult>
  /** Runs one child to its end; with `schema` (any Standard Schema) its reported JSON, parsed and typed, is `value`. */
  delegate<S extends StandardSchemaV1>(request: DelegateBase & { readonly schema: S; readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined; readonly background?: false | undefined }): Promise<TypedChildResult<InferOutput<S>>>
  delegate(request: DelegateBase & { readonly background: true }): Promise<ChildRun>
  /** A foreground child that `detach` may move to the background: then the call resolves at once to its `ChildRun`. */
  delegate(request: DelegateBase & { readonly background?: false | undefined; readonly detachable: true }): Promise<ChildResult | ChildRun>
  delegate(request: DelegateBase & { readonly background?: false | undefined }): Promise<ChildResult>
  /** Continues a child (a finished one answers; a running one reads it at its next step). */
  send(handle: string | ChildRun | ChildResult, message: string, options?: CallOptions): Promise<ChildResult | Queued>
  /** Waits for background children (default: all of the kit's) up to `timeoutMs` (default 10 minutes); those still running are listed as they are. */
  wait(handles?: ReadonlyArray<string | ChildRun> | undefined, options?: CallOptions & { readonly timeoutMs?: number | undefined }): Promise<ReadonlyArray<ChildResult | ChildInfo>>
  /** Stops a child and its descendants, or `all`; resolves to the handles stopped. */
  stop(handle: string | ChildRun | "all"): Promise<ReadonlyArray<string>>
  /**
   * Moves a running foreground child (`all`: every one of the lead's) to the background: the
   * call waiting for it (the lead's `subagent` tool call, a `delegate` with `detachable`)
   * returns `{status: "accepted", handle, runId}` at once; the outcome is announced later,
   * once (`announcements`, `wait`, or the lead's next step). Resolves to the runs detached.
   */
  detach(handle: string | "all"): Promise<ReadonlyArray<ChildRun>>
  /** Every child of the kit's session, with its status. */
  children(): Promise<ReadonlyArray<ChildInfo>>
  /** Hears every child's live events, and the lead's as handle `main` (`*` for all); returns the function that stops listening. */
  on<N extends ChildEventName>(event: N, listener: (event: N extends "*" ? ChildEvent : Extract<Events.AgentEvent, { readonly type: N }> & { readonly handle: string }) => void): () => void
  /** Background outcomes of `parent` (default `main`, the kit's own children) not handed out yet; each comes once. */
  announcements(parent?: string): Promise<ReadonlyArray<Announcement>>
  /** Plain tool definitions and AI SDK tools that delegate through this kit, for other agent loops. */
  readonly tools: KitTools
  /** Stops every child and closes the store. Later calls fail with `Closed`. */
  close(): Promise<void>
}

export interface KitTools {
  /** `subagent`, `send_message`, `list_agents` and `wait` as plain definitions. */
  readonly definitions: () => ReadonlyArray<KitToolDefinition>
  /**
   * The same as AI SDK tools (`tool()` of `ai`, an optional peer loaded only here), by name,
   * for `generateText({ tools })` or a `ToolLoopAgent`. `subagent` streams `SubagentProgress`
   * as preliminary results, then its result. The kit's types cannot name `ai`'s (it may not be
   * installed): say which you get, `aiSdk<ToolSet>()`.
   */
  readonly aiSdk: <T = Record<string, unknown>>() => Promise<T>
  /**
   * The same as OpenAI Agents SDK function tools (`tool()` of `@openai/agents`, an optional peer
   * loaded only here), for `new Agent({ tools })`; the run's abort signal stops the child. Name
   * the type you get: `openaiAgents<Array<FunctionTool>>()`.
   */
  readonly openaiAgents: <T = ReadonlyArray<unknown>>() => Promise<T>
  /** The same as an `effect/ai` `Toolkit` and the `Layer` of its handlers, for Effect programs. */
  readonly effectAi: () => ReturnType<typeof makeEffectAiTools>
}
