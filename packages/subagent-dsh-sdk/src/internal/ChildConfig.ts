import type { Limits } from "@dsh/subagent"
import type { Sandbox } from "@dsh/subprocess"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { isAbsolute, join } from "node:path"

/** Preparing a child failed before its process started (no store, an unwritable directory). */
export class ChildSetupError extends Schema.TaggedError<ChildSetupError>()("ChildSetupError", {
  message: Schema.String
}) {}

const TOML_KEYS: ReadonlyArray<readonly [keyof Limits.SubagentLimitsInput, string]> = [
  ["maxDepth", "max_depth"],
  ["maxConcurrent", "max_concurrent"],
  ["timeoutSeconds", "timeout_seconds"],
  ["maxChildren", "max_children"]
]

/**
 * The child's own `DSH_HOME`: its store's directory when the store is on disk; for a store that
 * is not (a database: its location is a URL), a directory of this machine named after that
 * location, so a cold continuation on the same machine finds the child's session again.
 */
export const childHomeOf = (location: string): string =>
  isAbsolute(location) ? location : join(tmpdir(), "dsh-sdk-children", createHash("sha256").update(location).digest("hex").slice(0, 24))

/** `[sandbox]` as TOML, for a child's config. */
export const sandboxToml = (sandbox: Sandbox.SandboxSettings): string =>
  `[sandbox]\nmode = ${JSON.stringify(sandbox.mode)}\nnetwork = ${sandbox.network}\nwritable = ${JSON.stringify(sandbox.writable)}\n`

/** The child's `config.toml` (its `DSH_HOME` is its own directory): only the limits and the sandbox it inherits. */
export const writeChildConfig = (
  dir: string,
  limits: Limits.SubagentLimitsInput | undefined,
  sandbox?: Sandbox.SandboxSettings | undefined,
  extra?: string | undefined
): Effect.Effect<void, ChildSetupError> =>
  Effect.tryPromise({
    try: async () => {
      // The child's own DSH_HOME (its sessions): owner-only like the parent's (umask only narrows).
      await mkdir(dir, { recursive: true, mode: 0o700 })
      if (limits === undefined && sandbox === undefined && extra === undefined) return
      const lines = TOML_KEYS.flatMap(([k, toml]) => (limits?.[k] === undefined ? [] : [`${toml} = ${Math.max(0, limits[k])}`]))
      await writeFile(
        join(dir, "config.toml"),
        `# Written by the dsh-sdk backend for this child.\n[limits]\n${lines.join("\n")}\n${sandbox === undefined ? "" : sandboxToml(sandbox)}${extra ?? ""}`,
        { mode: 0o600 }
      )
    },
    catch: (error) =>
      new ChildSetupError({ message: `cannot prepare the child's directory ${dir}: ${error instanceof Error ? error.message : String(error)}` })
  })
