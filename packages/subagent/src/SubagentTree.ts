import type { AgentEvent, RegistryError } from "@dsh/core"
import { type LanguageModelShape, LlmError, makeLanguageModel } from "@dsh/llm"
import type { SessionHandle } from "@dsh/session"
import { Effect, Scope, Stream } from "effect"
import { type Activations, makeActivations } from "./internal/activations.ts"
import { type Announcements, makeAnnouncements } from "./internal/announcements.ts"
import { type DescriptorBook, makeDescriptorBook } from "./internal/descriptors.ts"
import { type DynamicTypes, makeDynamicTypes } from "./internal/dynamicTypes.ts"
import { type LaneShape, makeMemoryLane } from "./Lane.ts"
import { normalizeLimits, type SubagentLimitsInput, type SubagentLimitsShape } from "./Limits.ts"
import { SubagentError } from "./SubagentError.ts"
import type { ChildContextFactory } from "./Vocabulary.ts"

/**
 * What a whole session tree shares, whatever context a child runs in: the session, the
 * limits, the lane, unique handles and the persisted descriptors. Providers, by contrast,
 * are per context (see `Subagents`).
 */
export interface SubagentTree {
  readonly session: SessionHandle | undefined
  readonly limits: SubagentLimitsShape
  readonly lane: LaneShape
  readonly descriptors: DescriptorBook
  /** Running Activations (at most one per child) and their inboxes. */
  readonly activations: Activations
  /** Durable announcements of background outcomes, per parent handle. */
  readonly announcements: Announcements
  /** Agent types created at runtime, session-wide and persisted (`create_subagent`). */
  readonly dynamicTypes: DynamicTypes
  readonly childContext: ChildContextFactory
  readonly resolveModel: (spec: string) => Effect.Effect<LanguageModelShape, LlmError | RegistryError>
  /** A unique handle for a new child of this type: `explore-1`, `acp-claude-2`. */
  readonly allocateHandle: (type: string) => Effect.Effect<string>
  /** Counts a new child against the per-session cap. */
  readonly reserveChild: Effect.Effect<void, SubagentError>
  /** Every child's live event, for observers (protocol servers, UIs). */
  readonly onChildEvent: (handle: string, event: AgentEvent) => Effect.Effect<void>
  /** The main agent's working directory and model: what a child continued by the user inherits. */
  readonly cwd: string
  readonly defaultModel: LanguageModelShape
  /** The scope background work lives in: as long as the tree. */
  readonly scope: Scope.Scope
}

export interface SubagentTreeOptions {
  readonly session?: SessionHandle | undefined
  /** The main agent's working directory and model (defaults: process cwd, a model that refuses). */
  readonly cwd?: string | undefined
  readonly defaultModel?: LanguageModelShape | undefined
  readonly limits?: SubagentLimitsInput | undefined
  readonly lane?: LaneShape | undefined
  readonly childContext: ChildContextFactory
  /** Resolves model overrides; without it, overrides are refused. */
  readonly resolveModel?: ((spec: string) => Effect.Effect<LanguageModelShape, LlmError | RegistryError>) | undefined
  readonly onChildEvent?: ((handle: string, event: AgentEvent) => Effect.Effect<void>) | undefined
}

const handlePrefix = (type: string): string =>
  type.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "agent"

export const makeSubagentTree = (options: SubagentTreeOptions): Effect.Effect<SubagentTree, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const limits = normalizeLimits(options.limits ?? {})
    const lane = options.lane ?? (yield* makeMemoryLane(limits.maxConcurrent))
    const descriptors = yield* makeDescriptorBook(options.session, scope)
    const announcements = yield* makeAnnouncements(options.session)
    const dynamicTypes = yield* makeDynamicTypes(options.session)
    // Numbering continues after a restart: start from the highest number already persisted.
    const counters = new Map<string, number>()
    for (const d of descriptors.all()) {
      const m = /^(.*)-(\d+)$/.exec(d.handle)
      if (m?.[1] !== undefined) counters.set(m[1], Math.max(counters.get(m[1]) ?? 0, Number(m[2])))
    }
    let children = descriptors.all().length
    return {
      session: options.session,
      limits,
      lane,
      descriptors,
      activations: makeActivations(),
      announcements,
      dynamicTypes,
      childContext: options.childContext,
      resolveModel: options.resolveModel ?? ((spec) =>
        Effect.fail(new LlmError({ reason: "Configuration", provider: "subagent", detail: `model overrides are not available here (${spec})`, retryable: false }))),
      scope,
      cwd: options.cwd ?? process.cwd(),
      defaultModel: options.defaultModel ?? makeLanguageModel({
        provider: "none",
        model: "none",
        stream: () => Stream.fail(new LlmError({ reason: "Configuration", provider: "none", detail: "no model was given to this subagent tree", retryable: false }))
      }),
      onChildEvent: options.onChildEvent ?? (() => Effect.void),
      allocateHandle: (type) =>
        Effect.sync(() => {
          const prefix = handlePrefix(type)
          const n = (counters.get(prefix) ?? 0) + 1
          counters.set(prefix, n)
          return `${prefix}-${n}`
        }),
      reserveChild: Effect.suspend(() => {
        if (children >= limits.maxChildren) {
          return Effect.fail(new SubagentError({
            reason: "ChildLimit",
            message: `this session already has ${children} children, the limit (${limits.maxChildren}); continue an existing child instead`
          }))
        }
        children++
        return Effect.void
      })
    } satisfies SubagentTree
  })
