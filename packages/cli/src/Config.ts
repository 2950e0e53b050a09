import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join } from "node:path"
import { parse as parseToml } from "smol-toml"
import { UsageError } from "./CliError.ts"

/** What `$DSH_HOME/config.toml` may hold. Unknown keys are ignored. */
export interface DshConfig {
  readonly model?: string | undefined
  readonly extraAgentDirs: ReadonlyArray<string>
  readonly limits: {
    readonly maxConcurrent?: number | undefined
    readonly timeoutSeconds?: number | undefined
    readonly maxDepth?: number | undefined
    readonly maxChildren?: number | undefined
  }
  /** `[llm]`: how model calls are retried on 429, 5xx and network errors. */
  readonly llm: {
    readonly maxRetries?: number | undefined
    readonly retryBaseMs?: number | undefined
  }
  /** `[bash] env = ["NAME", …]`: parent variables the Bash tool may see (everything else is scrubbed). */
  readonly bashEnv: ReadonlyArray<string>
  /** The raw table, for packages that read their own sections (e.g. `[acp.agents.*]`). */
  readonly raw: Readonly<Record<string, unknown>>
}

export const dshHome = (env: NodeJS.ProcessEnv): string =>
  env.DSH_HOME !== undefined && env.DSH_HOME !== "" ? env.DSH_HOME : join(homedir(), ".dsh")

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)

/** Reads config.toml; a missing file is an empty config, a malformed one is a usage error. */
export const loadConfig = (home: string): Effect.Effect<DshConfig, UsageError> =>
  Effect.gen(function*() {
    const path = join(home, "config.toml")
    const text = yield* Effect.tryPromise(() => readFile(path, "utf8")).pipe(
      Effect.catch((e) =>
        (e.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
          ? Effect.succeed("")
          : Effect.fail(new UsageError({ message: `cannot read ${path}: ${String(e.cause)}` }))
      )
    )
    const raw = yield* Effect.try({
      try: () => parseToml(text) as Record<string, unknown>,
      catch: (e) => new UsageError({ message: `${path}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` })
    })
    const limits = (raw.limits ?? {}) as Record<string, unknown>
    const llm = (raw.llm ?? {}) as Record<string, unknown>
    const bash = (raw.bash ?? {}) as Record<string, unknown>
    const dirs = raw.extra_agent_dirs
    return {
      model: typeof raw.model === "string" ? raw.model : undefined,
      extraAgentDirs: Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === "string") : [],
      limits: {
        maxConcurrent: num(limits.max_concurrent),
        timeoutSeconds: num(limits.timeout_seconds),
        maxDepth: num(limits.max_depth),
        maxChildren: num(limits.max_children)
      },
      bashEnv: Array.isArray(bash.env) ? bash.env.filter((n): n is string => typeof n === "string") : [],
      llm: { maxRetries: num(llm.max_retries), retryBaseMs: num(llm.retry_base_ms) },
      raw
    }
  })
