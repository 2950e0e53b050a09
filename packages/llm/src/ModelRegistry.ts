import { makeRegistry, type NamedRegistry, type Pricing, type RegistryError } from "@dsh/core"
import { Context, Effect, Layer, Scope } from "effect"
import type { LanguageModelShape } from "./LanguageModel.ts"
import { LlmError } from "./LlmError.ts"

/** Settings an adapter may read; the CLI fills them from flags, env and config.toml. */
export interface ModelConfig {
  readonly apiKey?: string | undefined
  readonly baseUrl?: string | undefined
  /** The environment to read `*_API_KEY` / `*_BASE_URL` from when the fields above are unset. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  readonly pricing?: Pricing | undefined
  /** For adapters that read a local file (the scripted model): relative paths resolve here. */
  readonly cwd?: string | undefined
  readonly maxOutputTokens?: number | undefined
}

/** A named way to build models: `openai`, `anthropic`, `scripted`, or one of the user's. */
export interface ModelAdapter {
  readonly name: string
  readonly description: string
  /** Builds a model for the part of the spec after `name:` (may be empty). */
  readonly create: (model: string, config: ModelConfig) => Effect.Effect<LanguageModelShape, LlmError>
}

export interface ModelRegistryShape {
  readonly adapters: NamedRegistry<ModelAdapter>
  /** Registers an adapter for the lifetime of the surrounding scope. */
  readonly register: (adapter: ModelAdapter) => Effect.Effect<void, RegistryError, Scope.Scope>
  /** Resolves a spec such as `openai:gpt-4.1` or `scripted:demo.json`. */
  readonly resolve: (spec: string, config?: ModelConfig) => Effect.Effect<LanguageModelShape, LlmError | RegistryError>
}

export const parseModelSpec = (spec: string): { readonly adapter: string; readonly model: string } => {
  const colon = spec.indexOf(":")
  return colon < 0 ? { adapter: spec, model: "" } : { adapter: spec.slice(0, colon), model: spec.slice(colon + 1) }
}

/** Adapters by name, owned by this service instance (no module-global registry). */
export class ModelRegistry extends Context.Service<ModelRegistry, ModelRegistryShape>()("@dsh/llm/ModelRegistry") {
  static readonly make: Effect.Effect<ModelRegistryShape> = Effect.gen(function*() {
    const adapters = yield* makeRegistry<ModelAdapter>("model adapter")
    return ModelRegistry.of({
      adapters,
      register: (adapter) => adapters.register(adapter.name, adapter),
      resolve: (spec, config = {}) =>
        Effect.gen(function*() {
          const { adapter, model } = parseModelSpec(spec)
          if (adapter === "") {
            return yield* new LlmError({
              reason: "Configuration",
              provider: "model spec",
              detail: `empty model spec "${spec}"`,
              retryable: false
            })
          }
          const found = yield* adapters.get(adapter)
          return yield* found.create(model, config)
        })
    })
  })

  static readonly layer: Layer.Layer<ModelRegistry> = Layer.effect(ModelRegistry, ModelRegistry.make)

  /** A registry holding `adapters` (e.g. `[ScriptedAdapter, OpenAIAdapter]`). */
  static readonly layerWith = (adapters: ReadonlyArray<ModelAdapter>): Layer.Layer<ModelRegistry, RegistryError> =>
    Layer.effect(ModelRegistry, Effect.gen(function*() {
      const registry = yield* ModelRegistry.make
      for (const adapter of adapters) yield* registry.adapters.registerPermanent(adapter.name, adapter)
      return registry
    }))

  /** A layer that registers one adapter into the registry it is given. */
  static readonly provide = (adapter: ModelAdapter): Layer.Layer<never, RegistryError, ModelRegistry> =>
    Layer.effectDiscard(Effect.gen(function*() {
      const registry = yield* ModelRegistry
      yield* registry.register(adapter)
    }))
}
