import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { ConfigError } from "./ConfigError.ts"
import { decodeHarnessConfig, type HarnessConfig } from "./HarnessConfig.ts"
import { BUILTIN_ADAPTERS } from "./ProviderPackages.ts"

/**
 * Reads a dsh config file (a user's `config.toml`, or a project's `.dsh/config.toml`) as a
 * `HarnessConfig`: a missing or empty file is an empty config (the TOML parser is not even
 * loaded, which keeps it off a command's start); an unreadable or malformed file, an invalid
 * setting or a `[providers.<name>]` that takes a built-in adapter's name is a `ConfigError`.
 */
export const loadHarnessConfigFile = (path: string): Effect.Effect<HarnessConfig, ConfigError> =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise(() => readFile(path, "utf8")).pipe(
      Effect.catch((e) =>
        (e.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
          ? Effect.succeed("")
          : Effect.fail(new ConfigError({ key: "", message: `cannot read ${path}: ${String(e.cause)}` }))
      )
    )
    const raw = text === "" ? {} : yield* Effect.tryPromise({
      try: async () => (await import("smol-toml")).parse(text) as Record<string, unknown>,
      catch: (e) => new ConfigError({ key: "", message: `${path}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` })
    })
    const config = yield* decodeHarnessConfig(raw, path)
    const taken = config.providers.find((p) => BUILTIN_ADAPTERS.includes(p.name))
    if (taken !== undefined) {
      return yield* new ConfigError({
        key: `providers.${taken.name}`,
        message: `${path}: [providers.${taken.name}] is not allowed: "${taken.name}" is a built-in model adapter; pick another name`
      })
    }
    return config
  })
