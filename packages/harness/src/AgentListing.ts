import { PolicyWarnings } from "@dsh/agent"
import { ResolveAgents, ToolNames } from "@dsh/agent-files"
import { type LlmError, ModelSpec } from "@dsh/llm"
import { ControlTools, CreateSubagentTools, ReportTool } from "@dsh/tool-subagent"
import { Effect } from "effect"
import type { HarnessOptions } from "./HarnessOptions.ts"

/**
 * The tools the harness adds to agents that may delegate: `subagent`, `swarm`, the control and
 * create tools unless turned off, and `report` (continuable children).
 */
export const delegationToolNames = (options: Pick<HarnessOptions, "controlTools" | "createTools"> = {}): ReadonlyArray<string> => [
  ToolNames.SUBAGENT_TOOL_NAME,
  ToolNames.SWARM_TOOL_NAME,
  ...(options.controlTools === false ? [] : ControlTools.CONTROL_TOOL_NAMES),
  ...(options.createTools === false ? [] : CreateSubagentTools.CREATE_TOOL_NAMES),
  ReportTool.REPORT_TOOL_NAME
]

/** What a listing checks agent profiles against: the harness's tools, types and models. */
export interface AgentListingContext extends Pick<HarnessOptions, "controlTools" | "createTools"> {
  /** The tools every agent context has before its policy narrows them (e.g. the built-ins' names). */
  readonly tools: ReadonlyArray<string>
  /** The agent types the harness's backends add (`fork`, `acp:*`, `sdk:*`), beside the agents listed. */
  readonly backendTypes?: ReadonlyArray<string> | undefined
  /** Maps a model spec to `adapter:model` (the registry's `canonical`); without it models are not checked. */
  readonly canonicalModel?: ((spec: string) => Effect.Effect<string, LlmError.LlmError>) | undefined
}

/**
 * `dsh agents list --json` as a library call: every agent, every skipped and shadowed file, and
 * the warnings — discovery's, plus each profile's policy warnings (patterns that can never match,
 * names no tool or agent has) and models no adapter serves — as they would be when the profile
 * applies, computed now.
 */
export const agentListing = (resolved: ResolveAgents.ResolvedAgents, context: AgentListingContext): Effect.Effect<ResolveAgents.AgentsListJson> =>
  Effect.gen(function*() {
    const doc = ResolveAgents.agentsListJson(resolved)
    const tools = [...context.tools, ...delegationToolNames(context)]
    const types = [...resolved.agents.map((a) => a.name), ...(context.backendTypes ?? [])]
    const warnings = [...doc.warnings]
    for (const agent of resolved.agents) {
      warnings.push(...PolicyWarnings.agentPolicyWarnings(agent, tools, types))
      const model = agent.model
      if (model === undefined || model === ModelSpec.INHERIT_MODEL || context.canonicalModel === undefined) continue
      const checked = yield* context.canonicalModel(model).pipe(Effect.result)
      if (checked._tag === "Failure") {
        warnings.push(`agent "${agent.name}" (${agent.source}): model: ${checked.failure.detail}; it runs on the default model for children, else its caller's`)
      }
    }
    return { ...doc, warnings }
  })
