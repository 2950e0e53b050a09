import type { SubagentLimitsInput } from "@dsh/subagent"
import type { SandboxSettings } from "@dsh/subprocess"
import { Effect, Schema } from "effect"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"

/** Preparing a child failed before its process started (no store, an unwritable directory). */
export class ChildSetupError extends Schema.TaggedError<ChildSetupError>()("ChildSetupError", {
  message: Schema.String
}) {}

const TOML_KEYS: ReadonlyArray<readonly [keyof SubagentLimitsInput, string]> = [
  ["maxDepth", "max_depth"],
  ["maxConcurrent", "max_concurrent"],
  ["timeoutSeconds", "timeout_seconds"],
  ["maxChildren", "max_children"]
]

/** `[sandbox]` as TOML, for a child's config. */
export const sandboxToml = (sandbox: SandboxSettings): string =>
  `[sandbox]\nmode = ${JSON.stringify(sandbox.mode)}\nnetwork = ${sandbox.network}\nwritable = ${JSON.stringify(sandbox.writable)}\n`

/** The child's `config.toml` (its `DSH_HOME` is its own directory): only the limits and the sandbox it inherits. */
export const writeChildConfig = (dir: string, limits: SubagentLimitsInput | undefined, sandbox?: SandboxSettings | undefined): Effect.Effect<void, ChildSetupError> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dir, { recursive: true })
      if (limits === undefined && sandbox === undefined) return
      const lines = TOML_KEYS.flatMap(([k, toml]) => (limits?.[k] === undefined ? [] : [`${toml} = ${Math.max(0, limits[k])}`]))
      await writeFile(
        join(dir, "config.toml"),
        `# Written by the dsh-sdk backend for this child.\n[limits]\n${lines.join("\n")}\n${sandbox === undefined ? "" : sandboxToml(sandbox)}`
      )
    },
    catch: (error) =>
      new ChildSetupError({ message: `cannot prepare the child's directory ${dir}: ${error instanceof Error ? error.message : String(error)}` })
  })
