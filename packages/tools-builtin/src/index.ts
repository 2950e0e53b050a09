/**
 * @dsh/tools-builtin: the built-in tools Read, Write, Edit, Glob, Grep and Bash, with the
 * background shell (BashBackground, BashOutput, BashStop), TodoWrite, plan mode (EnterPlanMode,
 * ExitPlanMode) and Agent Skills (Skill). File tools are confined by `PathPolicy` (default: the
 * agent's working directory); shell commands run through the `ProcessLauncher` seam of
 * `@dsh/subprocess`.
 */
export * from "./Bash.ts"
export * from "./BashBackground.ts"
export * from "./BuiltinTools.ts"
export * from "./CommandHooks.ts"
export * from "./Edit.ts"
export * from "./Glob.ts"
export * from "./Grep.ts"
export * from "./PathPolicy.ts"
export * from "./PlanMode.ts"
export * from "./Read.ts"
export * from "./Skills.ts"
export * from "./TodoWrite.ts"
export * from "./Write.ts"
