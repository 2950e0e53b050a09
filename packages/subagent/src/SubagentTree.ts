import type { TurnLoop } from "@dsh/agent"
import type { Events, Registry } from "@dsh/core"
import { LanguageModel, LlmError } from "@dsh/llm"
import type { SessionError, SessionStore } from "@dsh/session"
import { Effect, Fiber, Option, Scope, Stream } from "effect"
import { type Activations, makeActivations } from "./internal/activations.ts"
import { type AnnouncementListener, type Announcements, makeAnnouncements } from "./internal/announcements.ts"
import { type Archiver, makeArchiver } from "./internal/archiver.ts"
import { type DescriptorBook, makeDescriptorBook } from "./internal/descriptors.ts"
import { type DynamicTypes, makeDynamicTypes } from "./internal/dynamicTypes.ts"
import { makeChildCounters } from "./internal/childCounters.ts"
import { makeMemoryChildStores } from "./internal/memoryStores.ts"
import { runTurns } from "./internal/turns.ts"

type MemoryChildStores = ReturnType<typeof makeMemoryChildStores>
import { SubagentArchiving, type SubagentArchivingShape } from "./Archiving.ts"
import { Lane, type LaneShape, makeMemory as makeMemoryLane } from "./Lane.ts"
import { normalizeLimits, SubagentLimits, type SubagentLimitsInput, type SubagentLimitsShape } from "./Limits.ts"
import { SubagentError } from "./SubagentError.ts"
import { type RequestHandlers, serveRequests } from "./SessionRequests.ts"
import type { ChildContext, ChildSpec, TurnRunner } from "./Vocabulary.ts"
import { Worktrees, type WorktreesShape } from "./Worktrees.ts"

/** What a host hears of background outcomes, and the spec of a type made at run time. */
export type { AnnouncementListener, RoutedAnnouncement } from "./internal/announcements.ts"
export { DynamicAgentSpec } from "./internal/dynamicTypes.ts"

/**
 * A harness decides what exists in each child's context: its tools, including a `subagent`
 * tool of its own when nesting is allowed at that depth. It gets the tree the child belongs
 * to, so it can build the child's own `Subagents` over it. (Providers get it bound to their
 * tree: `StartContext.childContext`.)
 */
export type ChildContextFactory = (child: ChildSpec, tree: SubagentTree) => Effect.Effect<ChildContext>

/**
 * What a whole session tree shares, whatever context a child runs in: the session, the
 * limits, the lane, unique handles, the persisted descriptors, background announcements and
 * stop. Providers, by contrast, are per context (see `Subagents`).
 */
export interface SubagentTree {
  readonly session: SessionStore.SessionHandle | undefined
  readonly limits: SubagentLimitsShape
  readonly lane: LaneShape
  readonly descriptors: DescriptorBook
  /** Running Activations (at most one per child) and their inboxes. */
  readonly activations: Activations
  /** Durable announcements of background outcomes, per parent handle. */
  readonly announcements: Announcements
  /** Agent types created at runtime, session-wide and persisted (`create_subagent`). */
  readonly dynamicTypes: DynamicTypes
  /** Moves settled children's transcripts into the session's archive when due (see `SubagentArchiving`). */
  readonly archiver: Archiver
  readonly childContext: ChildContextFactory
  /** `agent`: the agent type the model is for (its own credentials, when the harness has some). */
  readonly resolveModel: (spec: string, agent?: string) => Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError>
  /** The model spec children use unless their call or agent type names one (`[subagents] model`); else their parent's. */
  readonly childModel: string | undefined
  /** A unique handle for a new child of this type: `explore-1`, `acp-claude-2`. */
  readonly allocateHandle: (type: string) => Effect.Effect<string>
  /** Counts a new child against the per-session cap. */
  readonly reserveChild: Effect.Effect<void, SubagentError>
  /** How many more children the session may have (`max_children` minus those it has). */
  readonly childCapacity: Effect.Effect<number>
  /** Every child's live event, for observers (protocol servers, UIs). */
  readonly onChildEvent: (handle: string, event: Events.AgentEvent) => Effect.Effect<void>
  /** The main agent's working directory and model: what a child continued by the user inherits. */
  readonly cwd: string
  readonly defaultModel: LanguageModel.LanguageModelShape
  /** Git worktrees for `isolation: "worktree"` children; undefined: such a child is refused. */
  readonly worktrees: WorktreesShape | undefined
  /** The scope background work lives in: as long as the tree. */
  readonly scope: Scope.Scope
  /** Without a session, children's stores live here (in memory, for the tree's lifetime). */
  readonly memoryStores: MemoryChildStores
  /** Whether `handle` is `from` itself's descendant (`user` and `main` reach every child). */
  readonly isReachable: (handle: string, from: string) => boolean
  /**
   * Stops the children this process runs among `handle` (or `all`) and their descendants, as
   * seen from `from`; returns the handles it stopped.
   */
  readonly stopHeld: (handle: string, from: string) => Effect.Effect<ReadonlyArray<string>>
  /**
   * How this process answers messages other processes send to the session's children (the
   * main context sets it: continuing a child needs its providers). Until then they are refused.
   */
  readonly answerSends: (send: RequestHandlers["send"]) => Effect.Effect<void>
  /** The wake loop of agent `handle` (see `StartContext.runTurns`). */
  readonly runTurns: <E>(handle: string, prompt: string, turn: TurnRunner<E>) => Effect.Effect<TurnLoop.TurnResult, E>
}

export interface SubagentTreeOptions {
  readonly session?: SessionStore.SessionHandle | undefined
  /** The main agent's working directory and model (defaults: process cwd, a model that refuses). */
  readonly cwd?: string | undefined
  readonly defaultModel?: LanguageModel.LanguageModelShape | undefined
  /** Default: the `SubagentLimits` of the context. */
  readonly limits?: SubagentLimitsInput | undefined
  /** Default: the `Lane` of the context, else an in-memory lane of `maxConcurrent` slots. */
  readonly lane?: LaneShape | undefined
  /** Default: the `SubagentArchiving` of the context (archive an hour after a child ended). */
  readonly archiving?: SubagentArchivingShape | undefined
  readonly childContext: ChildContextFactory
  /** Resolves model overrides; without it, overrides are skipped (with a note) and children run on their parent's model. */
  readonly resolveModel?: ((spec: string, agent?: string) => Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError>) | undefined
  /**
   * The model children run on unless their call or agent type names one (a cheaper model than
   * the main agent's, typically); `inherit` or none: their parent's.
   */
  readonly childModel?: string | undefined
  readonly onChildEvent?: ((handle: string, event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  /**
   * Each announcement as it is queued for its parent (and again queued after a restart), by
   * parent handle: a host routes every requester's announcements to that requester's own
   * channel. The parent agent still reads it; a failing listener is logged, never fatal.
   */
  readonly onAnnouncement?: AnnouncementListener | undefined
  /**
   * Whether this process owns the session (default true): it recovers what a dead owner left
   * (live children marked lost, undelivered announcements queued again) and hears other
   * processes' requests. A process hosting children for the owner (a cluster runner) passes false.
   */
  readonly owner?: boolean | undefined
  /**
   * Where handles and the per-session child count are kept: `memory` (default; one process
   * admits the session's children) or `session` (in the session's state, updated in one
   * transaction, so processes sharing a session never hand out one handle twice and the
   * `maxChildren` cap holds across all of them).
   */
  readonly admission?: "memory" | "session" | undefined
  /** Default: the `Worktrees` of the context, if any. */
  readonly worktrees?: WorktreesShape | undefined
}

const LIVE = new Set(["queued", "running"])

const refusingModel = LanguageModel.make({
  provider: "none",
  model: "none",
  stream: () => Stream.fail(new LlmError.LlmError({ reason: "Configuration", provider: "none", detail: "no model was given to this subagent tree", retryable: false }))
})

/**
 * Builds a session tree. It lives as long as the calling scope: background children run in
 * it, and, when the tree has a session, so does the server of cross-process stop requests.
 */
export const make = (options: SubagentTreeOptions): Effect.Effect<SubagentTree, SessionError.SessionError, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const limits = options.limits === undefined ? yield* SubagentLimits : normalizeLimits(options.limits)
    const lane = options.lane ?? Option.getOrUndefined(yield* Effect.serviceOption(Lane)) ?? (yield* makeMemoryLane(limits.maxConcurrent))
    const owner = options.owner !== false
    // One read of the stored state for everything the tree loads from it (a runner builds a tree per run).
    const stored = options.session === undefined ? undefined : yield* options.session.readState
    const descriptors = yield* makeDescriptorBook(options.session, stored, scope, owner)
    // The archiver hears about delivered outcomes (a `cleanup: "delete"` child is archived then).
    let onDelivered: Effect.Effect<void> = Effect.void
    const announcements = yield* makeAnnouncements(options.session, Effect.suspend(() => onDelivered), owner, options.onAnnouncement)
    const dynamicTypes = yield* makeDynamicTypes(options.session, stored)
    const activations = makeActivations()
    const archiver = yield* makeArchiver({
      // Archiving is the owner's (it takes the lease); a tree hosting children for another owner does not.
      session: owner ? options.session : undefined,
      descriptors,
      activations,
      delivered: (d) => d.background !== true || announcements.record(d.runId)?.delivered !== false,
      afterMinutes: (options.archiving ?? (yield* SubagentArchiving)).afterMinutes,
      scope
    })
    onDelivered = archiver.poke

    const counters = makeChildCounters(options.session, options.admission === "session", descriptors, limits)

    const isReachable = (handle: string, from: string): boolean => {
      if (from === "user" || from === "main") return true
      let cursor = descriptors.get(handle)
      while (cursor !== undefined) {
        if (cursor.parent === from) return true
        cursor = descriptors.get(cursor.parent)
      }
      return false
    }

    const shared = options.admission === "session" && options.session !== undefined
    const targetsOf = (handle: string, from: string) =>
      descriptors.all().filter((d) => (handle === "all" ? isReachable(d.handle, from) : d.handle === handle || isReachable(d.handle, handle)))

    const stopHeld = (handle: string, from: string) =>
      Effect.gen(function*() {
        // Shared: descendants other processes run are stopped through their ancestors here (a
        // stopped activation stops what it started, wherever that runs); they count as stopped.
        if (shared) yield* descriptors.refresh.pipe(Effect.ignore)
        const targets = targetsOf(handle, from)
        const live = (yield* Effect.forEach(targets, (d) => activations.state(d.handle))).flatMap((s, i) =>
          s?.fiber === undefined ? [] : [[targets[i]!.handle, s.fiber] as const]
        )
        yield* Effect.forEach(live, ([, fiber]) => Fiber.interrupt(fiber), { concurrency: "unbounded", discard: true })
        const stopped = new Set(live.map(([h]) => h))
        if (shared && stopped.size > 0) {
          yield* descriptors.refresh.pipe(Effect.ignore)
          for (const d of targets) if (LIVE.has(d.status) && descriptors.get(d.handle)?.status !== d.status) stopped.add(d.handle)
        }
        return [...stopped]
      })

    // Shared: what other processes record about this session's children is followed here.
    if (shared && owner) {
      yield* Effect.forkIn(
        Stream.runForEach(options.session!.watchState, (state) => Effect.sync(() => descriptors.merge(state))).pipe(
          Effect.ignore({ log: "Warn", message: "children recorded by other processes are no longer followed" })
        ),
        scope
      )
    }

    let sends: RequestHandlers["send"] = (handle) => Effect.fail(`this process cannot continue ${handle}`)
    if (options.session !== undefined && owner) {
      const handlers = Effect.sync((): RequestHandlers => ({ stop: (h) => stopHeld(h, "user"), send: sends }))
      yield* Effect.forkIn(
        serveRequests(options.session, handlers).pipe(
          Effect.ignore({ log: "Warn", message: "requests from other processes are no longer heard" })
        ),
        scope
      )
    }

    return {
      session: options.session,
      limits,
      lane,
      descriptors,
      activations,
      announcements,
      dynamicTypes,
      archiver,
      childContext: options.childContext,
      resolveModel: options.resolveModel ?? ((spec) =>
        Effect.fail(new LlmError.LlmError({ reason: "Configuration", provider: "subagent", detail: `model overrides are not available here (${spec})`, retryable: false }))),
      childModel: options.childModel,
      scope,
      memoryStores: makeMemoryChildStores(),
      cwd: options.cwd ?? process.cwd(),
      defaultModel: options.defaultModel ?? refusingModel,
      worktrees: options.worktrees ?? Option.getOrUndefined(yield* Effect.serviceOption(Worktrees)),
      onChildEvent: options.onChildEvent ?? (() => Effect.void),
      ...counters,
      isReachable,
      stopHeld,
      answerSends: (send) => Effect.sync(() => void (sends = send)),
      runTurns: (handle, prompt, turn) => runTurns(announcements, activations.take(handle), handle, prompt, turn)
    } satisfies SubagentTree
  })
