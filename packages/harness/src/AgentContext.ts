import { AgentCatalog, type AgentDefinition } from "@dsh/agent"
import type { Events, Registry } from "@dsh/core"
import type { LanguageModel, LlmError } from "@dsh/llm"
import type { SessionError, SessionStore } from "@dsh/session"
import { type Lane, type Limits, type Specification, SubagentTree } from "@dsh/subagent"
import type { Tool } from "@dsh/tools"
import { Effect, type Scope } from "effect"
import type { BackendInput, HarnessOptions } from "./HarnessOptions.ts"
import { agentContext, type AgentContext, childContextFactory } from "./internal/contexts.ts"

const asBackend = (b: BackendInput) => ("provider" in b ? b : { provider: b, types: [] })

export interface AgentContextOptions {
  /** The main agent and the definitions its children may run as (or `main`/`delegates`). */
  readonly catalog?: AgentCatalog.AgentCatalog | undefined
  readonly main?: AgentDefinition.AgentDefinition | undefined
  readonly delegates?: ReadonlyArray<AgentDefinition.AgentDefinition> | undefined
  readonly backends: ReadonlyArray<BackendInput>
  readonly tools?: ReadonlyArray<Tool.AnyTool> | undefined
  readonly model: LanguageModel.LanguageModelShape
  /** Where descriptors, transcripts and announcements persist; without it, in memory only. */
  readonly session?: SessionStore.SessionHandle | undefined
  readonly cwd?: string | undefined
  readonly limits?: Limits.SubagentLimitsInput | undefined
  readonly lane?: Lane.LaneShape | undefined
  readonly resolveModel?: ((spec: string, agent?: string) => Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError>) | undefined
  readonly onChildEvent?: ((handle: string, event: Events.AgentEvent) => Effect.Effect<void>) | undefined
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
export const make = (options: AgentContextOptions): Effect.Effect<AgentContext & { readonly tree: SubagentTree.SubagentTree }, SessionError.SessionError | Registry.RegistryError | Specification.ProviderVersionError, Scope.Scope> =>
  Effect.gen(function*() {
    const main = options.main ?? { name: "main", description: "the main agent", systemPrompt: "", override: false, scope: "runtime", source: "harness" }
    const catalog = options.catalog ?? AgentCatalog.staticCatalog({ main, delegates: options.delegates })
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
    const tree = yield* SubagentTree.make({
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
