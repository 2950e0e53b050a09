/**
 * The names of dsh's built-in tools, in the order `@dsh/tools-builtin`'s `makeBuiltinTools` returns
 * them. Kept in the seam so that what reads agent files (`@dsh/agent-files`, mapping other
 * harnesses' tool names) knows them without depending on the tools themselves.
 */
export const BUILTIN_TOOL_NAMES = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "BashBackground",
  "BashOutput",
  "BashStop",
  "TodoWrite",
  "EnterPlanMode",
  "ExitPlanMode",
  "Skill"
] as const
