import { type AgentCatalog, type AgentDefinition, agentPolicyWarnings } from "@dsh/agent"
import type { RegistryError } from "@dsh/core"
import type { LanguageModelShape } from "@dsh/llm"
import {
  type AgentType,
  type ChildContextFactory,
  makeSubagents,
  type ParentInfo,
  type ProviderVersionError,
  type SubagentBackend,
  Subagents,
  type SubagentsShape,
  type SubagentTree
} from "@dsh/subagent"
import { makeControlTools, makeCreateSubagentTools, makeReportTool, makeSubagentTool, makeSwarmTool } from "@dsh/tool-subagent"
import { type AnyTool, compilePolicy, InheritedDisallowedTools } from "@dsh/tools"
import { Effect } from "effect"
import type { HarnessOptions } from "../HarnessOptions.ts"

/** An agent whose context is being built: the main agent, or a child. */
export interface ContextAgent {
  readonly handle: string
  readonly depth: number
  readonly cwd: string
  readonly model: LanguageModelShape
  readonly definition: AgentDefinition
}

/** What every context of one session is built from. */
export interface ContextPlan {
  readonly catalog: AgentCatalog
  readonly backends: ReadonlyArray<SubagentBackend>
  readonly tools: ReadonlyArray<AnyTool>
  readonly options: Pick<HarnessOptions, "delegatesRunOn" | "controlTools" | "createTools" | "pricing">
}

export interface AgentContext {
  readonly parent: ParentInfo
  readonly subagents: SubagentsShape
  /** The tools that exist in this context, before the agent's own policy narrows them. */
  readonly tools: ReadonlyArray<AnyTool>
}

/** The agent types of a session: the catalog's delegates on the default provider, then the backends' own. */
export const agentTypes = (plan: ContextPlan): ReadonlyArray<AgentType> => {
  const provider = plan.options.delegatesRunOn ?? "spawn"
  const own = plan.backends.flatMap((b) => b.types)
  // A backend's own type keeps its name: an agent definition of the same name is not offered.
  const taken = new Set(own.map((t) => t.name))
  return [
    ...plan.catalog.delegates.filter((d) => !taken.has(d.name)).map((definition): AgentType => ({ name: definition.name, description: definition.description, provider, definition })),
    ...own
  ]
}

/**
 * One agent's context: the `Subagents` over the session tree with every backend, and its
 * tools — the harness's own, plus `subagent` and `swarm` (and the control and create tools) while the
 * agent is above the depth limit. A created type never gets more tools than its creator.
 */
export const agentContext = (plan: ContextPlan, agent: ContextAgent, tree: SubagentTree): Effect.Effect<AgentContext, RegistryError | ProviderVersionError> =>
  Effect.gen(function*() {
    const subagents = yield* makeSubagents({
      tree,
      providers: plan.backends.map((b) => b.provider),
      types: agentTypes(plan),
      pricing: plan.options.pricing,
      dynamicProvider: plan.options.delegatesRunOn
    })
    const parent: ParentInfo = { handle: agent.handle, depth: agent.depth, cwd: agent.cwd, model: agent.model, definition: agent.definition }
    if (agent.depth >= tree.limits.maxDepth) return { parent, subagents, tools: plan.tools }
    const delegation = yield* Effect.gen(function*() {
      const own = compilePolicy({ tools: agent.definition.tools, disallowedTools: agent.definition.disallowedTools })
      // A created type gets no tool its creator's ancestors disallow either.
      const inherited = compilePolicy({ disallowedTools: yield* InheritedDisallowedTools })
      const allowed = (name: string) => own(name) && inherited(name)
      return [
        yield* makeSubagentTool(parent),
        yield* makeSwarmTool(parent),
        ...(plan.options.controlTools === false ? [] : yield* makeControlTools(parent)),
        ...(plan.options.createTools === false ? [] : yield* makeCreateSubagentTools(parent, { creatorTools: plan.tools.map((t) => t.name).filter(allowed) }))
      ]
    }).pipe(Effect.provideService(Subagents, subagents))
    return { parent, subagents, tools: [...plan.tools, ...delegation] }
  })

/** What a child's context is: as any agent's, plus `report` for continuable children. */
export const childContextFactory = (plan: ContextPlan): ChildContextFactory => (child, tree) =>
  agentContext(plan, { handle: child.handle, depth: child.depth, cwd: child.cwd, model: child.model, definition: child.type.definition }, tree).pipe(
    Effect.flatMap(({ subagents, tools }) =>
      Effect.map(subagents.typeNames, (typeNames) => {
        const all = child.report === undefined ? tools : [...tools, makeReportTool({ report: child.report, resultSchema: child.resultSchema })]
        // The same pattern warnings as a main agent's, now that the child's tool set is known.
        const warnings = agentPolicyWarnings(child.type.definition, all.map((t) => t.name), typeNames)
        // What the requester allows its own children: this child's tools only (its children get
        // theirs from it); `report` stays, it is how a continuable child hands its result back.
        const defaults = child.requester?.subagentDefaults
        const allowed = defaults === undefined ? undefined : compilePolicy({ tools: defaults.tools, disallowedTools: defaults.disallowedTools })
        const given = allowed === undefined ? all : all.filter((t) => t.name === "report" || allowed(t.name))
        return { tools: given, systemPrompt: plan.catalog.render(child.type.definition, child.cwd), ...(warnings.length === 0 ? {} : { warnings }) }
      })
    ),
    Effect.orDie
  )
