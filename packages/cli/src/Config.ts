import { BUILTIN_ADAPTERS, decodeHarnessConfig, type HarnessConfig } from "@dsh/harness"
import { type AcpAgentConfig, decodeAcpAgents } from "@dsh/subagent-acp"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join } from "node:path"
import { UsageError } from "./CliError.ts"

/** What `$DSH_HOME/config.toml` holds (see `HarnessConfig`). */
export type DshConfig = HarnessConfig

export const dshHome = (env: NodeJS.ProcessEnv): string =>
  env.DSH_HOME !== undefined && env.DSH_HOME !== "" ? env.DSH_HOME : join(homedir(), ".dsh")

/** Reads config.toml: a missing file is an empty config; a malformed file or setting is a usage error. */
export const loadConfig = (home: string): Effect.Effect<DshConfig, UsageError> => loadConfigFile(join(home, "config.toml"))

/** Reads a config file (the user's, or a project's `.dsh/config.toml`); a missing file is empty. */
export const loadConfigFile = (path: string): Effect.Effect<DshConfig, UsageError> =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise(() => readFile(path, "utf8")).pipe(
      Effect.catch((e) =>
        (e.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
          ? Effect.succeed("")
          : Effect.fail(new UsageError({ message: `cannot read ${path}: ${String(e.cause)}` }))
      )
    )
    // No file (or an empty one): the TOML parser is not even loaded.
    const raw = text === "" ? {} : yield* Effect.tryPromise({
      try: async () => (await import("smol-toml")).parse(text) as Record<string, unknown>,
      catch: (e) => new UsageError({ message: `${path}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` })
    })
    const config = yield* decodeHarnessConfig(raw, path).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
    const taken = config.providers.find((p) => BUILTIN_ADAPTERS.includes(p.name))
    if (taken !== undefined) {
      return yield* new UsageError({ message: `${path}: [providers.${taken.name}] is not allowed: "${taken.name}" is a built-in model adapter; pick another name` })
    }
    return config
  })

/** The `[acp.agents.*]` of a loaded config, strictly: an invalid entry is a usage error naming its key. */
export const acpAgentsOf = (config: DshConfig, home: string): Effect.Effect<ReadonlyArray<AcpAgentConfig>, UsageError> =>
  decodeAcpAgents(config.raw, join(home, "config.toml")).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
