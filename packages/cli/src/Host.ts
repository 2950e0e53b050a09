import { DshHarness, DshModels } from "@dsh/kit/dsh"
import { Effect, Layer } from "effect"
import { loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { cliInstall } from "./Install.ts"
import type { PermissionFlags } from "./Permissions.ts"

/** config.toml with its model settings checked (a spec no adapter serves fails naming the key: exit 2). */
export const loadCheckedConfig = (ctx: CliContext) =>
  Effect.flatMap(loadConfig(ctx.home), (config) => Effect.map(DshModels.check(ctx, config), (models) => ({ config, models })))

/** Everything of a loaded config.toml the harness needs, checked: a malformed setting fails naming its key (exit 2). */
export const harnessSettings = DshHarness.settings

/** `harnessSettings` of `$DSH_HOME/config.toml`. */
export const loadHarnessSettings = (ctx: CliContext) => Effect.flatMap(loadConfig(ctx.home), (config) => DshHarness.settings(ctx, config))

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
