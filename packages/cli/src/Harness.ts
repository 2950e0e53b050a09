import type { AgentDefinition } from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { type LanguageModelShape, ModelRegistry } from "@dsh/llm"
import type { SessionHandle, Transcript } from "@dsh/session"
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
import { ForkProvider } from "@dsh/subagent-fork"
import { SpawnProvider } from "@dsh/subagent-spawn"
import { makeCreateSubagentTools, makeSubagentTool } from "@dsh/tool-subagent"
import { makeControlTools } from "@dsh/tool-subagent-control"
import { makeReportTool } from "@dsh/tool-subagent-report"
import { type AnyTool, compilePolicy } from "@dsh/tools"
import { makeBuiltinToolsWith } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { acpChildBackend } from "./AcpChild.ts"
import type { DshConfig } from "./Config.ts"
import { sdkChildBackend } from "./SdkChild.ts"

export interface HarnessOptions {
  readonly session: SessionHandle
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** The main agent's model: children inherit it unless their type or request names another. */
  readonly model: LanguageModelShape
  /** Agent definitions children may run as (the main agent's own is not among them). */
  readonly delegationTypes: ReadonlyArray<AgentDefinition>
  readonly limits: SubagentLimitsInput
  /** Renders an agent's system prompt template for a working directory. */
  readonly renderPrompt: (definition: AgentDefinition, cwd: string) => string
  readonly onChildEvent?: ((handle: string, event: AgentEvent) => Effect.Effect<void>) | undefined
  /** config.toml: `[acp.agents.*]` become `acp:<name>` types. */
  readonly config?: DshConfig | undefined
}

export interface Harness {
  readonly tree: SubagentTree
  /** The tools of an agent at `depth`, including its own `subagent` tool when nesting allows. */
  readonly toolsFor: (parent: ParentInfo) => Effect.Effect<ReadonlyArray<AnyTool>>
  /** The `ctx.subagents` of an agent's context (the main agent's for the CLI's own commands). */
  readonly subagentsFor: (parent: ParentInfo) => Effect.Effect<SubagentsShape>
}

/** The built-in `fork` type: a copy of the caller that starts from its conversation. */
const FORK_TYPE: AgentType = {
  name: "fork",
  description: "a copy of you that starts from this conversation (keeps your model, prompt and tools); " +
    "use it for a side task that needs what you already know",
  provider: "fork",
  definition: {
    name: "fork",
    description: "a copy of the caller, seeded with its conversation",
    systemPrompt: "",
    override: false,
    scope: "builtin",
    source: "builtin:fork"
  }
}

/**
 * The reference harness's wiring: which backends exist in each context and which tools
 * each agent gets. Every context gets the in-process `spawn` backend; an agent below the
 * depth limit also gets a `subagent` tool bound to its own context.
 */
export const makeHarness = (options: HarnessOptions) =>
  Effect.gen(function*() {
    // Bash sees the scrubbed environment plus only what config.toml names under [bash] env.
    const bashEnv: Record<string, string> = {}
    for (const name of options.config?.bashEnv ?? []) {
      const value = options.env[name]
      if (value !== undefined) bashEnv[name] = value
    }
    const builtins = yield* makeBuiltinToolsWith({ env: bashEnv })
    const registry = yield* ModelRegistry
    // Out-of-process children run this CLI's own `dsh sdk` (type `sdk:dsh`).
    const sdk = yield* sdkChildBackend({ env: options.env, maxDepth: () => tree.limits.maxDepth })
    // ACP children: `acp:dsh` (this CLI's `dsh acp`) and the agents named in config.toml.
    const acp = yield* acpChildBackend({ env: options.env, raw: options.config?.raw, maxDepth: () => tree.limits.maxDepth })
    const providers: ReadonlyArray<SubagentProvider> = [SpawnProvider, ForkProvider, sdk.provider, acp.provider]
    const types: ReadonlyArray<AgentType> = options.delegationTypes.map((definition): AgentType => ({
      name: definition.name,
      description: definition.description,
      provider: "spawn",
      definition
    })).concat(sdk.type, FORK_TYPE, acp.types)
    let contextFor: (parent: ParentInfo) => Effect.Effect<SubagentsShape>
    const toolsFor = (parent: ParentInfo): Effect.Effect<ReadonlyArray<AnyTool>> =>
      Effect.gen(function*() {
        if (parent.depth >= tree.limits.maxDepth) return builtins
        const subagents = yield* contextFor(parent)
        const tool = yield* makeSubagentTool(subagents, parent)
        // A created type never gets more than its creator's own (policy-filtered) built-in tools.
        const allowed = compilePolicy(parent.toolPolicy ?? {})
        const creatorTools = builtins.map((t) => t.name).filter(allowed)
        return [
          ...builtins,
          tool,
          ...makeControlTools(subagents, parent),
          ...makeCreateSubagentTools(subagents, parent, { creatorTools })
        ]
      })
    const childContext: ChildContextFactory = (child) =>
      Effect.gen(function*() {
        const parent: ParentInfo = {
          handle: child.handle,
          depth: child.depth,
          cwd: child.cwd,
          model: child.model,
          allowedTypes: child.type.definition.subagents,
          toolPolicy: { tools: child.type.definition.tools, disallowedTools: child.type.definition.disallowedTools }
        }
        const tools = yield* toolsFor(parent)
        // Continuable children get `report`: hand a result back and stay continuable.
        const report = child.report === undefined ? [] : [makeReportTool({ report: child.report, resultSchema: child.resultSchema })]
        return { tools: [...tools, ...report], systemPrompt: options.renderPrompt(child.type.definition, child.cwd) }
      })
    const tree = yield* makeSubagentTree({
      session: options.session,
      cwd: options.cwd,
      defaultModel: options.model,
      limits: options.limits,
      childContext,
      resolveModel: (spec) => registry.resolve(spec, { env: options.env, cwd: options.cwd }),
      onChildEvent: options.onChildEvent
    })
    contextFor = () => makeSubagents({ tree, providers, types }).pipe(Effect.orDie)
    return { tree, toolsFor, subagentsFor: contextFor } satisfies Harness
  })

/** The main agent's parent info: depth 0, its definition's `subagents` allow-list. */
export const mainParent = (opts: {
  readonly cwd: string
  readonly model: LanguageModelShape
  readonly definition: AgentDefinition
  readonly systemPrompt: string
  readonly transcript: Transcript
  readonly onEvent: (event: AgentEvent) => Effect.Effect<void>
}): ParentInfo => ({
  handle: "main",
  depth: 0,
  cwd: opts.cwd,
  model: opts.model,
  allowedTypes: opts.definition.subagents,
  onEvent: opts.onEvent,
  systemPrompt: opts.systemPrompt,
  toolPolicy: { tools: opts.definition.tools, disallowedTools: opts.definition.disallowedTools },
  // What a fork starts from: the conversation so far, as persisted (the transcript flushes on read).
  history: opts.transcript.read.pipe(
    Effect.map(({ records }) => records.flatMap((r) => (r.type === "message" ? [r.message] : []))),
    Effect.orElseSucceed(() => [])
  )
})
