import { checkModelsConfig, configLayer } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { UsageError } from "./CliError.ts"
import { acpAgentsOf, type DshConfig, loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer, type HarnessSettings } from "./DshHarness.ts"
import type { PermissionFlags } from "./Permissions.ts"
import { modelRegistryLayer } from "./Runtime.ts"

/**
 * The model settings of a loaded config.toml checked against the CLI's models (aliases,
 * `[subagents] model`, pricing keys): a spec no adapter serves is a usage error naming the key.
 */
const checkModels = (ctx: CliContext, config: DshConfig) =>
  Effect.gen(function*() {
    const registry = yield* ModelRegistry
    return yield* checkModelsConfig(config.models, registry, join(ctx.home, "config.toml"))
  }).pipe(
    Effect.provide(modelRegistryLayer(config, ctx)),
    Effect.mapError((e) => new UsageError({ message: e.message }))
  )

/** config.toml with its model settings checked (see `checkModels`). */
export const loadCheckedConfig = (ctx: CliContext) =>
  Effect.gen(function*() {
    const config = yield* loadConfig(ctx.home)
    return { config, models: yield* checkModels(ctx, config) }
  })

/** Everything of a loaded config.toml the harness needs, checked: a malformed setting is a usage error naming its key. */
export const harnessSettings = (ctx: CliContext, config: DshConfig): Effect.Effect<HarnessSettings, UsageError> =>
  Effect.gen(function*() {
    const acpAgents = yield* acpAgentsOf(config, ctx.home)
    return { config, acpAgents, models: yield* checkModels(ctx, config) }
  })

/** `harnessSettings` of `$DSH_HOME/config.toml`. */
export const loadHarnessSettings = (ctx: CliContext): Effect.Effect<HarnessSettings, UsageError> =>
  Effect.flatMap(loadConfig(ctx.home), (config) => harnessSettings(ctx, config))

/** The host of checked settings, with the tree limits, retry policy and models they configure. */
export const hostLayerOf = (ctx: CliContext, settings: HarnessSettings, flags?: PermissionFlags | undefined) =>
  dshHarnessLayer(ctx, settings, flags).pipe(
    Layer.provideMerge(configLayer(settings.config)),
    Layer.provideMerge(modelRegistryLayer(settings.config, ctx))
  )

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits, the model retry policy and the models with the config's aliases; the permission
 * flags of this invocation join the configured rules. A malformed config (an invalid
 * `[acp.agents.*]` entry or model setting included) is a usage error here.
 */
export const hostLayer = (ctx: CliContext, flags?: PermissionFlags | undefined) =>
  Layer.unwrap(Effect.map(loadHarnessSettings(ctx), (settings) => hostLayerOf(ctx, settings, flags)))
