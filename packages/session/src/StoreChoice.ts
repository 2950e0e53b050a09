import { Result } from "effect"
import { parseStoreSpec, type StoreSpec } from "./StoreSpec.ts"

/** The store setting a harness uses and where it came from (`--store`, `DSH_STORE`, …: for messages). */
export interface ChosenStore {
  readonly source: string
  readonly spec: StoreSpec
}

/**
 * The session store a command uses, by precedence: the flag, else the environment variable
 * (empty counts as unset), else the config file's setting, else the file store in `home` (the
 * embedded default). Relative directories are resolved against `cwd` (flag, environment) or
 * `home` (config). The failure is a sentence naming where the bad setting came from.
 */
export const chooseStoreSpec = (settings: {
  readonly flag?: string | undefined
  readonly env?: string | undefined
  readonly configured?: string | undefined
  readonly cwd: string
  readonly home: string
}): Result.Result<ChosenStore, string> => {
  const env = settings.env === "" ? undefined : settings.env
  const [source, value, base] = settings.flag !== undefined
    ? ["--store", settings.flag, settings.cwd]
    : env !== undefined
    ? ["DSH_STORE", env, settings.cwd]
    : settings.configured !== undefined
    ? ["store (config.toml)", settings.configured, settings.home]
    : ["default", settings.home, settings.home]
  return Result.mapBoth(parseStoreSpec(value, base), { onFailure: (why) => `${source} ${why}`, onSuccess: (spec) => ({ source, spec }) })
}
