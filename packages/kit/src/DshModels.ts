import type { Registry } from "@dsh/core"
import { HarnessConfig, ModelsConfig, ProviderPackages } from "@dsh/harness"
import { type LanguageModel, LazyAdapter, type LlmError, ModelRegistry } from "@dsh/llm"
import { ANTHROPIC_ALIASES, ANTHROPIC_MODEL_IDS } from "@dsh/llm-anthropic/names"
import { OPENAI_MODEL_IDS } from "@dsh/llm-openai/names"
import { Effect, type Layer } from "effect"
import { join } from "node:path"

/** Where a dsh harness runs: its environment, working directory and `$DSH_HOME`. */
export interface DshPlace {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  readonly home: string
}

/**
 * dsh's own model adapters, each loaded when a spec first names it: a harness on the scripted
 * model never loads the HTTP adapters, `openai:…` never loads Anthropic's. The names they answer
 * to (`sonnet`, `claude-*`, `gpt-*`) are known before they load.
 */
export const adapters: ReadonlyArray<ModelRegistry.ModelAdapter> = [
  LazyAdapter.lazyAdapter({
    name: "scripted",
    description: "deterministic offline model driven by a JSON script",
    load: () => import("@dsh/llm-scripted").then((m) => m.ScriptedAdapter.ScriptedAdapter)
  }),
  LazyAdapter.lazyAdapter({
    name: "openai",
    description: "OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, Moonshot, OpenRouter)",
    modelIds: OPENAI_MODEL_IDS,
    load: () => import("@dsh/llm-openai").then((m) => m.OpenAIAdapter.OpenAIAdapter)
  }),
  LazyAdapter.lazyAdapter({
    name: "anthropic",
    description: "Anthropic Messages API (Claude), streaming with tool use",
    aliases: ANTHROPIC_ALIASES,
    modelIds: ANTHROPIC_MODEL_IDS,
    load: () => import("@dsh/llm-anthropic").then((m) => m.AnthropicAdapter.AnthropicAdapter)
  })
]

/**
 * The models of a config.toml: `adapters`, its `[models]` aliases (over the adapters' own
 * `sonnet`, `opus`, `haiku`) and its `[providers.<name>]` (installed AI SDK providers, found from
 * the place's home and cwd). Without a config, the adapters alone.
 */
export const registryLayer = (config?: HarnessConfig.HarnessConfig, place?: DshPlace): Layer.Layer<ModelRegistry.ModelRegistry, Registry.RegistryError> =>
  ModelRegistry.layerWith(
    [...adapters, ...(config === undefined || place === undefined ? [] : ProviderPackages.providerAdapters(config.providers, place))],
    { aliases: config?.models.aliases }
  )

/**
 * A config's model settings (aliases, `[subagents] model`, pricing keys) checked against its
 * models: a spec no adapter serves fails naming the key of `$DSH_HOME/config.toml`.
 */
export const check = (place: DshPlace, config: HarnessConfig.HarnessConfig): Effect.Effect<ModelsConfig.CheckedModels, HarnessConfig.ConfigError | Registry.RegistryError> =>
  Effect.gen(function*() {
    const registry = yield* ModelRegistry.ModelRegistry
    return yield* ModelsConfig.checkModelsConfig(config.models, registry, join(place.home, "config.toml"))
  }).pipe(Effect.provide(registryLayer(config, place)))

/** A model spec resolved as the sessions of `config` at `place` resolve it (its `[models]` aliases and providers). */
export const resolve = (place: DshPlace, config: HarnessConfig.HarnessConfig, spec: string): Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError> =>
  Effect.gen(function*() {
    const registry = yield* ModelRegistry.ModelRegistry
    return yield* registry.resolve(spec, { env: place.env, cwd: place.cwd })
  }).pipe(Effect.provide(registryLayer(config, place)))
