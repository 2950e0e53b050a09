import type { AgentDefinition } from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { type LanguageModelShape, ModelRegistry } from "@dsh/llm"
import type { SessionHandle } from "@dsh/session"
import {
  type AgentType,
  type ChildContextFactory,
  makeSubagents,
  makeSubagentTree,
  type ParentInfo,
  type SubagentLimitsInput,
  type SubagentProvider,
  type SubagentsShape,
  type SubagentTree
} from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-spawn"
import { makeSubagentTool } from "@dsh/tool-subagent"
import type { AnyTool } from "@dsh/tools"
import { makeBuiltinTools } from "@dsh/tools-builtin"
import { Effect } from "effect"

export interface HarnessOptions {
  readonly session: SessionHandle
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** Agent definitions children may run as (the main agent's own is not among them). */
  readonly delegationTypes: ReadonlyArray<AgentDefinition>
  readonly limits: SubagentLimitsInput
  /** Renders an agent's system prompt template for a working directory. */
  readonly renderPrompt: (definition: AgentDefinition, cwd: string) => string
  readonly onChildEvent?: ((handle: string, event: AgentEvent) => Effect.Effect<void>) | undefined
}

export interface Harness {
  readonly tree: SubagentTree
  /** The tools of an agent at `depth`, including its own `subagent` tool when nesting allows. */
  readonly toolsFor: (parent: ParentInfo) => Effect.Effect<ReadonlyArray<AnyTool>>
}

/**
 * The reference harness's wiring: which backends exist in each context and which tools
 * each agent gets. Every context gets the in-process `spawn` backend; an agent below the
 * depth limit also gets a `subagent` tool bound to its own context.
 */
export const makeHarness = (options: HarnessOptions) =>
  Effect.gen(function*() {
    const builtins = yield* makeBuiltinTools
    const registry = yield* ModelRegistry
    const providers: ReadonlyArray<SubagentProvider> = [SpawnProvider]
    const types: ReadonlyArray<AgentType> = options.delegationTypes.map((definition) => ({
      name: definition.name,
      description: definition.description,
      provider: "spawn",
      definition
    }))
    let contextFor: (parent: ParentInfo) => Effect.Effect<SubagentsShape>
    const toolsFor = (parent: ParentInfo): Effect.Effect<ReadonlyArray<AnyTool>> =>
      Effect.gen(function*() {
        if (parent.depth >= tree.limits.maxDepth) return builtins
        const subagents = yield* contextFor(parent)
        const tool = yield* makeSubagentTool(subagents, parent)
        return [...builtins, tool]
      })
    const childContext: ChildContextFactory = (child) =>
      Effect.gen(function*() {
        const parent: ParentInfo = {
          handle: child.handle,
          depth: child.depth,
          cwd: child.cwd,
          model: child.model,
          allowedTypes: child.type.definition.subagents
        }
        return { tools: yield* toolsFor(parent), systemPrompt: options.renderPrompt(child.type.definition, child.cwd) }
      })
    const tree = yield* makeSubagentTree({
      session: options.session,
      limits: options.limits,
      childContext,
      resolveModel: (spec) => registry.resolve(spec, { env: options.env, cwd: options.cwd }),
      onChildEvent: options.onChildEvent
    })
    contextFor = () => makeSubagents({ tree, providers, types }).pipe(Effect.orDie)
    return { tree, toolsFor } satisfies Harness
  })

/** The main agent's parent info: depth 0, its definition's `subagents` allow-list. */
export const mainParent = (opts: {
  readonly cwd: string
  readonly model: LanguageModelShape
  readonly definition: AgentDefinition
  readonly onEvent: (event: AgentEvent) => Effect.Effect<void>
}): ParentInfo => ({
  handle: "main",
  depth: 0,
  cwd: opts.cwd,
  model: opts.model,
  allowedTypes: opts.definition.subagents,
  onEvent: opts.onEvent
})
