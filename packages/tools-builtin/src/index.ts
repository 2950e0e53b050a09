/**
 * @dsh/tools-builtin: the built-in tools Read, Write, Edit, Glob, Grep and Bash, with the
 * background shell (BashBackground, BashOutput, BashStop), TodoWrite, plan mode (EnterPlanMode,
 * ExitPlanMode) and Agent Skills (Skill). File tools are confined by `PathPolicy` (default: the
 * agent's working directory); shell commands run through the `ProcessLauncher` seam of
 * `@dsh/subprocess`.
 */
export * as Bash from "./Bash.ts"
export * as BashBackground from "./BashBackground.ts"
export * as BuiltinTools from "./BuiltinTools.ts"
export * as CommandHooks from "./CommandHooks.ts"
export * as Edit from "./Edit.ts"
export * as Glob from "./Glob.ts"
export * as Grep from "./Grep.ts"
export * as PathPolicy from "./PathPolicy.ts"
export * as PlanMode from "./PlanMode.ts"
export * as Read from "./Read.ts"
export * as Skills from "./Skills.ts"
export * as TodoWrite from "./TodoWrite.ts"
export * as Write from "./Write.ts"
