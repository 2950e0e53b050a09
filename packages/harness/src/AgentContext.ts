import { type AgentCatalog, type AgentDefinition, staticCatalog } from "@dsh/agent"
import type { AgentEvent, RegistryError } from "@dsh/core"
import type { LanguageModelShape, LlmError } from "@dsh/llm"
import type { SessionError, SessionHandle } from "@dsh/session"
import { type LaneShape, makeSubagentTree, type ProviderVersionError, type SubagentLimitsInput, type SubagentTree } from "@dsh/subagent"
import type { AnyTool } from "@dsh/tools"
import { Effect, type Scope } from "effect"
import type { BackendInput, HarnessOptions } from "./HarnessOptions.ts"
import { agentContext, type AgentContext, childContextFactory } from "./internal/contexts.ts"

const asBackend = (b: BackendInput) => ("provider" in b ? b : { provider: b, types: [] })

export interface AgentContextOptions {
  /** The main agent and the definitions its children may run as (or `main`/`delegates`). */
  readonly catalog?: AgentCatalog | undefined
  readonly main?: AgentDefinition | undefined
  readonly delegates?: ReadonlyArray<AgentDefinition> | undefined
  readonly backends: ReadonlyArray<BackendInput>
  readonly tools?: ReadonlyArray<AnyTool> | undefined
  readonly model: LanguageModelShape
  /** Where descriptors, transcripts and announcements persist; without it, in memory only. */
  readonly session?: SessionHandle | undefined
  readonly cwd?: string | undefined
  readonly limits?: SubagentLimitsInput | undefined
  readonly lane?: LaneShape | undefined
  readonly resolveModel?: ((spec: string, agent?: string) => Effect.Effect<LanguageModelShape, LlmError | RegistryError>) | undefined
  readonly onChildEvent?: ((handle: string, event: AgentEvent) => Effect.Effect<void>) | undefined
  readonly delegatesRunOn?: HarnessOptions["delegatesRunOn"]
  readonly controlTools?: HarnessOptions["controlTools"]
  readonly createTools?: HarnessOptions["createTools"]
  readonly pricing?: HarnessOptions["pricing"]
  /** The model children run on unless their call or agent type names one (see `HarnessOptions.subagentModel`). */
  readonly subagentModel?: HarnessOptions["subagentModel"]
  /** Each announcement by requester (see `HarnessOptions.onAnnouncement`). */
  readonly onAnnouncement?: HarnessOptions["onAnnouncement"]
  /** Where handles and the child cap live (see `SubagentTreeOptions.admission`). */
  readonly admission?: "memory" | "session" | undefined
}

/**
 * The main agent's context without a host, for harnesses that run their own turns: a session
 * tree whose children get contexts of their own (their tools, their `subagent` tool while
 * above the depth limit, `report` when continuable), and the main agent's `Subagents`, tools
 * and parent info. Lives as long as the calling scope.
 */
export const makeAgentContext = (options: AgentContextOptions): Effect.Effect<AgentContext & { readonly tree: SubagentTree }, SessionError | RegistryError | ProviderVersionError, Scope.Scope> =>
  Effect.gen(function*() {
    const main = options.main ?? { name: "main", description: "the main agent", systemPrompt: "", override: false, scope: "runtime", source: "harness" }
    const catalog = options.catalog ?? staticCatalog({ main, delegates: options.delegates })
    const plan = {
      catalog,
      backends: options.backends.map(asBackend),
      tools: options.tools ?? [],
      options: {
        agents: () => Effect.succeed(catalog),
        backends: [],
        delegatesRunOn: options.delegatesRunOn,
        controlTools: options.controlTools,
        createTools: options.createTools,
        pricing: options.pricing
      }
    }
    const cwd = options.cwd ?? process.cwd()
    const tree = yield* makeSubagentTree({
      session: options.session,
      cwd,
      defaultModel: options.model,
      limits: options.limits,
      lane: options.lane,
      childContext: childContextFactory(plan),
      resolveModel: options.resolveModel,
      childModel: options.subagentModel,
      onChildEvent: options.onChildEvent,
      onAnnouncement: options.onAnnouncement,
      admission: options.admission
    })
    const context = yield* agentContext(plan, { handle: "main", depth: 0, cwd, model: options.model, definition: catalog.main }, tree)
    return { ...context, tree }
  })
