import { DshHarness, DshModels } from "@dsh/kit/dsh"
import { Effect, Layer } from "effect"
import { UsageError } from "./CliError.ts"
import { type DshConfig, loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { cliInstall } from "./Install.ts"
import type { PermissionFlags } from "./Permissions.ts"

const asUsageError = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.mapError(effect, (e) => new UsageError({ message: e.message }))

/** config.toml with its model settings checked (a spec no adapter serves is a usage error naming the key). */
export const loadCheckedConfig = (ctx: CliContext) =>
  Effect.gen(function*() {
    const config = yield* loadConfig(ctx.home)
    return { config, models: yield* asUsageError(DshModels.check(ctx, config)) }
  })

/** Everything of a loaded config.toml the harness needs, checked: a malformed setting is a usage error naming its key. */
export const harnessSettings = (ctx: CliContext, config: DshConfig): Effect.Effect<DshHarness.DshSettings, UsageError> =>
  asUsageError(DshHarness.settings(ctx, config))

/** `harnessSettings` of `$DSH_HOME/config.toml`. */
export const loadHarnessSettings = (ctx: CliContext): Effect.Effect<DshHarness.DshSettings, UsageError> =>
  Effect.flatMap(loadConfig(ctx.home), (config) => harnessSettings(ctx, config))

/** The host of checked settings: dsh's harness as this CLI is installed. */
export const hostLayerOf = (ctx: CliContext, settings: DshHarness.DshSettings, flags?: PermissionFlags | undefined) =>
  DshHarness.layer(ctx, settings, cliInstall(), flags)

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits, the model retry policy and the models with the config's aliases; the permission
 * flags of this invocation join the configured rules. A malformed config (an invalid
 * `[acp.agents.*]` entry or model setting included) is a usage error here.
 */
export const hostLayer = (ctx: CliContext, flags?: PermissionFlags | undefined) =>
  Layer.unwrap(Effect.map(loadHarnessSettings(ctx), (settings) => hostLayerOf(ctx, settings, flags)))
