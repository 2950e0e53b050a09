import { type AgentCatalog, type AgentDefinition, PolicyWarnings } from "@dsh/agent"
import type { Registry } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { type Specification, Subagents, type SubagentTree, type Vocabulary } from "@dsh/subagent"
import { ControlTools, CreateSubagentTools, ReportTool, SubagentTool, SwarmTool } from "@dsh/tool-subagent"
import { InheritedDisallow, type Tool, ToolPolicy } from "@dsh/tools"
import { Effect } from "effect"
import type { HarnessOptions } from "../HarnessOptions.ts"

/** An agent whose context is being built: the main agent, or a child. */
export interface ContextAgent {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModel.LanguageModelShape
  readonly definition: AgentDefinition.AgentDefinition
}

/** What every context of one session is built from. */
export interface ContextPlan {
  readonly catalog: AgentCatalog.AgentCatalog
  readonly backends: ReadonlyArray<Vocabulary.SubagentBackend>
  readonly tools: ReadonlyArray<Tool.AnyTool>
  readonly options: Pick<HarnessOptions, "delegatesRunOn" | "controlTools" | "createTools" | "pricing">
}

export interface AgentContext {
  readonly parent: Vocabulary.ParentInfo
  readonly subagents: Subagents.SubagentsShape
  /** The tools that exist in this context, before the agent's own policy narrows them. */
  readonly tools: ReadonlyArray<Tool.AnyTool>
}

/** The agent types of a session: the catalog's delegates on the default provider, then the backends' own. */
export const agentTypes = (plan: ContextPlan): ReadonlyArray<Vocabulary.AgentType> => {
  const provider = plan.options.delegatesRunOn ?? "spawn"
  const own = plan.backends.flatMap((b) => b.types)
  // A backend's own type keeps its name: an agent definition of the same name is not offered.
  const taken = new Set(own.map((t) => t.name))
  return [
    ...plan.catalog.delegates.filter((d) => !taken.has(d.name)).map((definition): Vocabulary.AgentType => ({ name: definition.name, description: definition.description, provider, definition })),
    ...own
  ]
}

/**
 * One agent's context: the `Subagents` over the session tree with every backend, and its
 * tools — the harness's own, plus `subagent` and `swarm` (and the control and create tools) while the
 * agent is above the depth limit. A created type never gets more tools than its creator.
 */
export const agentContext = (plan: ContextPlan, agent: ContextAgent, tree: SubagentTree.SubagentTree): Effect.Effect<AgentContext, Registry.RegistryError | Specification.ProviderVersionError> =>
  Effect.gen(function*() {
    const subagents = yield* Subagents.make({
      tree,
      providers: plan.backends.map((b) => b.provider),
      types: agentTypes(plan),
      pricing: plan.options.pricing,
      dynamicProvider: plan.options.delegatesRunOn
    })
    const parent: Vocabulary.ParentInfo = { handle: agent.handle, depth: agent.depth, cwd: agent.cwd, model: agent.model, definition: agent.definition }
    if (agent.depth >= tree.limits.maxDepth) return { parent, subagents, tools: plan.tools }
    const delegation = yield* Effect.gen(function*() {
      const own = ToolPolicy.compilePolicy({ tools: agent.definition.tools, disallowedTools: agent.definition.disallowedTools })
      // A created type gets no tool its creator's ancestors disallow either.
      const inherited = ToolPolicy.compilePolicy({ disallowedTools: yield* InheritedDisallow.InheritedDisallowedTools })
      const allowed = (name: string) => own(name) && inherited(name)
      return [
        yield* SubagentTool.make(parent),
        yield* SwarmTool.make(parent),
        ...(plan.options.controlTools === false ? [] : yield* ControlTools.make(parent)),
        ...(plan.options.createTools === false ? [] : yield* CreateSubagentTools.make(parent, { creatorTools: plan.tools.map((t) => t.name).filter(allowed) }))
      ]
    }).pipe(Effect.provideService(Subagents.Subagents, subagents))
    return { parent, subagents, tools: [...plan.tools, ...delegation] }
  })

/** What a child's context is: as any agent's, plus `report` for continuable children. */
export const childContextFactory = (plan: ContextPlan): SubagentTree.ChildContextFactory => (child, tree) =>
  agentContext(plan, { handle: child.handle, depth: child.depth, cwd: child.cwd, model: child.model, definition: child.type.definition }, tree).pipe(
    Effect.flatMap(({ subagents, tools }) =>
      Effect.map(subagents.typeNames, (typeNames) => {
        const all = child.report === undefined ? tools : [...tools, ReportTool.make({ report: child.report, resultSchema: child.resultSchema })]
        // The same pattern warnings as a main agent's, now that the child's tool set is known.
        const warnings = PolicyWarnings.agentPolicyWarnings(child.type.definition, all.map((t) => t.name), typeNames)
        // What the requester allows its own children: this child's tools only (its children get
        // theirs from it); `report` stays, it is how a continuable child hands its result back.
        const defaults = child.requester?.subagentDefaults
        const allowed = defaults === undefined ? undefined : ToolPolicy.compilePolicy({ tools: defaults.tools, disallowedTools: defaults.disallowedTools })
        const given = allowed === undefined ? all : all.filter((t) => t.name === "report" || allowed(t.name))
        return { tools: given, systemPrompt: plan.catalog.render(child.type.definition, child.cwd), ...(warnings.length === 0 ? {} : { warnings }) }
      })
    ),
    Effect.orDie
  )
