/**
 * The built-in tool set as one list: every tool of this package with the shell tools bound to
 * the launcher in context and the write tools gated by plan mode, so a harness adds them with
 * one call instead of assembling and gating them itself.
 */
import { BuiltinToolNames, type Tool } from "@dsh/tools"
import { ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { type BashOptions, makeBashTool } from "./Bash.ts"
import { makeBackgroundShellTools } from "./BashBackground.ts"
import { make as makePlanMode } from "./PlanMode.ts"
import { makeSkillTool, type SkillRoots } from "./Skills.ts"
import { TodoWriteTool } from "./TodoWrite.ts"
import { EditTool } from "./Edit.ts"
import { GlobTool } from "./Glob.ts"
import { GrepTool } from "./Grep.ts"
import { ReadTool } from "./Read.ts"
import { WriteTool } from "./Write.ts"

export const BUILTIN_TOOL_NAMES = BuiltinToolNames.BUILTIN_TOOL_NAMES

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
export const makeWith = (options: BuiltinToolsOptions): Effect.Effect<ReadonlyArray<Tool.AnyTool>, never, ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher.ProcessLauncher
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
export const make: Effect.Effect<ReadonlyArray<Tool.AnyTool>, never, ProcessLauncher.ProcessLauncher> = makeWith({})
