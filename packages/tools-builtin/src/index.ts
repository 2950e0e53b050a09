/**
 * @dsh/tools-builtin: the built-in tools Read, Write, Edit, Glob, Grep and Bash. File tools are
 * confined by `PathPolicy` (default: the agent's working directory); Bash runs through the
 * `ProcessLauncher` seam of `@dsh/subprocess`.
 */
import type { AnyTool } from "@dsh/tools"
import { ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { type BashOptions, makeBashTool } from "./Bash.ts"
import { EditTool } from "./Edit.ts"
import { GlobTool } from "./Glob.ts"
import { GrepTool } from "./Grep.ts"
import { ReadTool } from "./Read.ts"
import { WriteTool } from "./Write.ts"

export * from "./Bash.ts"
export * from "./CommandHooks.ts"
export * from "./Edit.ts"
export * from "./Glob.ts"
export * from "./Grep.ts"
export * from "./PathPolicy.ts"
export * from "./Read.ts"
export * from "./Write.ts"

/** The names of all built-in tools, in the order `makeBuiltinTools` returns them. */
export const BUILTIN_TOOL_NAMES = ["Read", "Write", "Edit", "Glob", "Grep", "Bash"] as const

/** The tools that never change anything: a safe `tools` list for explore/plan agents. */
export const READ_ONLY_TOOL_NAMES = ["Read", "Glob", "Grep"] as const

/** All six built-in tools, with Bash options (e.g. variables it may see); Bash uses the launcher in context. */
export const makeBuiltinToolsWith = (options: BashOptions): Effect.Effect<ReadonlyArray<AnyTool>, never, ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher
    return [ReadTool, WriteTool, EditTool, GlobTool, GrepTool, makeBashTool(launcher, options)]
  })

/** All six built-in tools; Bash is bound to the launcher in context. */
export const makeBuiltinTools: Effect.Effect<ReadonlyArray<AnyTool>, never, ProcessLauncher> = makeBuiltinToolsWith({})
