import { Tool } from "@dsh/tools"
import { Effect, type Scope } from "effect"
import * as z from "zod"

/**
 * The agent's plan mode (the seed's "进入 Plan 模式"): an agent that enters it plans before acting.
 * While it is on, every tool that changes something is refused before it runs; the agent
 * investigates with the read tools and then proposes its plan with `ExitPlanMode`, a call the
 * user approves like any other write (the permission question shows the plan). Approved, the
 * mode ends and the write tools work again; rejected, the agent keeps planning.
 *
 * Not the same as `--permission-mode plan`: that is the user's setting for a whole session tree,
 * refuses every write for its whole life and cannot be left by the model. This mode is the
 * agent's own choice, per run, and ends with the user's approval of a plan.
 */
export interface PlanMode {
  /** `EnterPlanMode` and `ExitPlanMode`. */
  readonly tools: ReadonlyArray<Tool.AnyTool>
  /** The same tools, each write tool refusing while its run is in plan mode. */
  readonly gate: (tools: ReadonlyArray<Tool.AnyTool>) => ReadonlyArray<Tool.AnyTool>
}

export const make = (): PlanMode => {
  // Runs in plan mode, by the run's scope: the mode ends with the run.
  const planning = new WeakSet<Scope.Scope>()
  const noRun = { content: "Plan mode needs an agent run.", isError: true }

  const enter = Tool.defineTool({
    name: "EnterPlanMode",
    description: [
      "Enter plan mode before a change that needs thought: tools that change files or run commands are then refused",
      "until you present a plan with ExitPlanMode and the user approves it. Read, Glob, Grep and the other read-only",
      "tools keep working."
    ].join(" "),
    parameters: z.object({}),
    needsApproval: false,
    execute: (_params, context) =>
      Effect.sync(() => {
        const scope = context.turn?.scope
        if (scope === undefined) return noRun
        if (planning.has(scope)) return "Already in plan mode."
        planning.add(scope)
        return "Plan mode is on: investigate with the read-only tools, then call ExitPlanMode with your plan. Write tools are refused until the user approves it."
      })
  })

  const exit = Tool.defineTool({
    name: "ExitPlanMode",
    description: [
      "Present your plan (Markdown: the steps, the files to change, how to verify) and ask the user to approve it.",
      "Approved, plan mode ends and you carry the plan out; rejected, you stay in plan mode and revise it."
    ].join(" "),
    parameters: z.object({ plan: z.string().min(1).describe("The plan the user approves before you act.") }),
    // The user's approval is the permission question this call raises (kind `other` asks in the default mode).
    needsApproval: true,
    permission: { kind: "other" },
    summarize: (params) => `approve this plan?\n${params.plan}`,
    execute: (_params, context) =>
      Effect.sync(() => {
        const scope = context.turn?.scope
        if (scope === undefined) return noRun
        if (!planning.has(scope)) return "Not in plan mode; go ahead."
        planning.delete(scope)
        return "The user approved the plan. Plan mode is off: carry it out."
      })
  })

  const gate = (tools: ReadonlyArray<Tool.AnyTool>): ReadonlyArray<Tool.AnyTool> =>
    tools.map((tool) =>
      !tool.needsApproval || tool.name === exit.name
        ? tool
        : {
          ...tool,
          execute: (params, context) => {
            const scope = context.turn?.scope
            return scope !== undefined && planning.has(scope)
              ? Effect.succeed({
                content: `${tool.name} is not available in plan mode: present your plan with ExitPlanMode first; once the user approves it, ${tool.name} works again.`,
                isError: true
              })
              : tool.execute(params, context)
          }
        }
    )

  return { tools: [enter, exit], gate }
}
