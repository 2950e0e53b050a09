import { checkModelsConfig, configLayer } from "@dsh/harness"
import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { type ModelAdapter, ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { UsageError } from "./CliError.ts"
import { type DshConfig, loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"
import { cliLoggerLayer } from "./Logger.ts"

/** The model adapters of the CLI. */
export const MODEL_ADAPTERS: ReadonlyArray<ModelAdapter> = [ScriptedAdapter, OpenAIAdapter, AnthropicAdapter]

/** The CLI's models with config.toml's `[models]` aliases (over the adapters' own `sonnet`, `opus`, `haiku`). */
export const modelRegistryLayer = (config?: DshConfig) => ModelRegistry.layerWith(MODEL_ADAPTERS, { aliases: config?.models.aliases })

/** The services every command runs with: models, the file session store, local processes, logs. */
export const cliLayer = (ctx: CliContext) =>
  Layer.mergeAll(
    modelRegistryLayer(),
    FileSessionStore.layer({ home: ctx.home }),
    LocalProcessLauncher.layer(),
    cliLoggerLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr })
  )

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
 * tree limits, the model retry policy and the models with the config's aliases. A malformed
 * config is a usage error here.
 */
export const hostLayer = (ctx: CliContext) =>
  Layer.unwrap(Effect.map(loadCheckedConfig(ctx), ({ config, models }) =>
    dshHarnessLayer(ctx, config, models).pipe(
      Layer.provideMerge(configLayer(config)),
      Layer.provideMerge(modelRegistryLayer(config))
    )))
