/**
 * @dsh/tools-builtin: the built-in tools Read, Write, Edit, Glob, Grep and Bash, with the
 * background shell (BashBackground, BashOutput, BashStop), TodoWrite, plan mode (EnterPlanMode,
 * ExitPlanMode) and Agent Skills (Skill). File tools are confined by `PathPolicy` (default: the
 * agent's working directory); shell commands run through the `ProcessLauncher` seam of
 * `@dsh/subprocess`.
 */
import type { AnyTool } from "@dsh/tools"
import { ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { type BashOptions, makeBashTool } from "./Bash.ts"
import { makeBackgroundShellTools } from "./BashBackground.ts"
import { makePlanMode } from "./PlanMode.ts"
import { makeSkillTool, type SkillRoots } from "./Skills.ts"
import { TodoWriteTool } from "./TodoWrite.ts"
import { EditTool } from "./Edit.ts"
import { GlobTool } from "./Glob.ts"
import { GrepTool } from "./Grep.ts"
import { ReadTool } from "./Read.ts"
import { WriteTool } from "./Write.ts"

export * from "./Bash.ts"
export * from "./BashBackground.ts"
export * from "./CommandHooks.ts"
export * from "./PlanMode.ts"
export * from "./Skills.ts"
export * from "./TodoWrite.ts"
export * from "./Edit.ts"
export * from "./Glob.ts"
export * from "./Grep.ts"
export * from "./PathPolicy.ts"
export * from "./Read.ts"
export * from "./Write.ts"

export { BUILTIN_TOOL_NAMES } from "@dsh/tools"

/** Options of the built-in set: Bash's (environment, sandbox) and where skills are found. */
export interface BuiltinToolsOptions extends BashOptions {
  /** Skill folders beyond the project's `.agents/skills/` (`~/.agents/skills/`, `$DSH_HOME/skills/`, extra dirs). */
  readonly skills?: SkillRoots | undefined
}

/** The tools that never change anything: a safe `tools` list for explore/plan agents. */
export const READ_ONLY_TOOL_NAMES = ["Read", "Glob", "Grep"] as const

/**
 * All built-in tools, with Bash options (e.g. variables it may see); the shell tools use the
 * launcher in context. The write tools are gated by plan mode (refused while the run plans).
 */
export const makeBuiltinToolsWith = (options: BuiltinToolsOptions): Effect.Effect<ReadonlyArray<AnyTool>, never, ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher
    const plan = makePlanMode()
    return plan.gate([
      ReadTool,
      WriteTool,
      EditTool,
      GlobTool,
      GrepTool,
      makeBashTool(launcher, options),
      ...makeBackgroundShellTools(launcher, options),
      TodoWriteTool,
      ...plan.tools,
      makeSkillTool(options.skills ?? {})
    ])
  })

/** All built-in tools; the shell tools are bound to the launcher in context. */
export const makeBuiltinTools: Effect.Effect<ReadonlyArray<AnyTool>, never, ProcessLauncher> = makeBuiltinToolsWith({})
