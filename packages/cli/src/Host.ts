import { checkModelsConfig, configLayer } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { UsageError } from "./CliError.ts"
import { loadConfig, loadHostConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"
import type { PermissionFlags } from "./Permissions.ts"
import { modelRegistryLayer } from "./Runtime.ts"

/**
 * config.toml with its model settings checked against the CLI's models (aliases, `[subagents]
 * model`, pricing keys): a spec no adapter serves is a usage error naming the key.
 */
export const loadCheckedConfig = (ctx: CliContext) =>
  Effect.gen(function*() {
    const config = yield* loadConfig(ctx.home)
    const models = yield* Effect.gen(function*() {
      const registry = yield* ModelRegistry
      return yield* checkModelsConfig(config.models, registry, join(ctx.home, "config.toml"))
    }).pipe(
      Effect.provide(modelRegistryLayer(config)),
      Effect.mapError((e) => new UsageError({ message: e.message }))
    )
    return { config, models }
  })

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits, the model retry policy and the models with the config's aliases; the permission
 * flags of this invocation join the configured rules. A malformed config (an invalid
 * `[acp.agents.*]` entry or model setting included) is a usage error here.
 */
export const hostLayer = (ctx: CliContext, flags?: PermissionFlags | undefined) =>
  Layer.unwrap(Effect.gen(function*() {
    const { config, acpAgents } = yield* loadHostConfig(ctx.home)
    const { models } = yield* loadCheckedConfig(ctx)
    return dshHarnessLayer(ctx, config, acpAgents, models, flags).pipe(
      Layer.provideMerge(configLayer(config)),
      Layer.provideMerge(modelRegistryLayer(config))
    )
  }))
