import { ConfigFile, type HarnessConfig } from "@dsh/harness"
import { Effect } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { UsageError } from "./CliError.ts"

/** What `$DSH_HOME/config.toml` holds (see `HarnessConfig`). */
export type DshConfig = HarnessConfig.HarnessConfig

export const dshHome = (env: NodeJS.ProcessEnv): string =>
  env.DSH_HOME !== undefined && env.DSH_HOME !== "" ? env.DSH_HOME : join(homedir(), ".dsh")

/** Reads config.toml: a missing file is an empty config; a malformed file or setting is a usage error. */
export const loadConfig = (home: string): Effect.Effect<DshConfig, UsageError> =>
  ConfigFile.loadHarnessConfigFile(join(home, "config.toml")).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
