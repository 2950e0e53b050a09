import { Registry, type Usage } from "@dsh/core"
import { Context, Effect, Layer, Scope } from "effect"
import type { LanguageModelShape } from "./LanguageModel.ts"
import { LlmError } from "./LlmError.ts"
import { canonicalModelSpec, type ModelIdPattern, parseModelSpec } from "./ModelSpec.ts"

/** Settings an adapter may read; the CLI fills them from flags, env and config.toml. */
export interface ModelConfig {
  readonly apiKey?: string | undefined
  readonly baseUrl?: string | undefined
  /** The environment to read `*_API_KEY` / `*_BASE_URL` from when the fields above are unset. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  readonly pricing?: Usage.Pricing | undefined
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
  /** Short names this adapter ships (`sonnet` → `anthropic:claude-sonnet-4-5`); a registry's own aliases override them. */
  readonly aliases?: Readonly<Record<string, string>> | undefined
  /** Bare vendor model ids this adapter serves without an `adapter:` prefix (`claude-*`). */
  readonly modelIds?: ModelIdPattern | undefined
}

/** A registry's own settings. */
export interface ModelRegistryOptions {
  /** Aliases (`fast = "openai:gpt-4.1-mini"`, or `sonnet` pointed elsewhere); they win over the adapters' own. */
  readonly aliases?: Readonly<Record<string, string>> | undefined
}

export interface ModelRegistryShape {
  readonly adapters: Registry.NamedRegistry<ModelAdapter>
  /** Registers an adapter for the lifetime of the surrounding scope. */
  readonly register: (adapter: ModelAdapter) => Effect.Effect<void, Registry.RegistryError, Scope.Scope>
  /**
   * Builds a model from any spec `canonical` accepts (`openai:gpt-4.1`, `scripted:demo.json`,
   * `sonnet`, `claude-haiku-4-5`, `anthropic/claude-haiku-4-5`).
   */
  readonly resolve: (spec: string, config?: ModelConfig) => Effect.Effect<LanguageModelShape, LlmError | Registry.RegistryError>
  /**
   * The `<adapter>:<model>` form of a spec (see `canonicalModelSpec`): aliases, OpenCode's
   * `provider/model` and bare vendor ids mapped to the adapter that serves them. Needs no
   * credentials; a spec it cannot map fails with a `Configuration` error saying what would do.
   */
  readonly canonical: (spec: string) => Effect.Effect<string, LlmError>
  /** Every alias in effect: the adapters' own, overridden by the registry's. */
  readonly aliases: Effect.Effect<Readonly<Record<string, string>>>
}

/** Adapters by name, owned by this service instance (no module-global registry). */
export class ModelRegistry extends Context.Service<ModelRegistry, ModelRegistryShape>()("@dsh/llm/ModelRegistry") {}

export const make: Effect.Effect<ModelRegistryShape> = Effect.suspend(() => makeWith({}))

/** A registry with its own aliases. */
export const makeWith = (options: ModelRegistryOptions): Effect.Effect<ModelRegistryShape> =>
  Effect.gen(function*() {
    const adapters = yield* Registry.make<ModelAdapter>("model adapter")
    const own = options.aliases ?? {}
    const configurationError = (detail: string) =>
      new LlmError({ reason: "Configuration", provider: "model spec", detail, retryable: false })
    const canonical = (spec: string) =>
      Effect.gen(function*() {
        const all = (yield* adapters.entries).map(([, a]) => a)
        const result = canonicalModelSpec(spec, all, own)
        return result._tag === "Spec" ? result.spec : yield* configurationError(result.reason)
      })
    return ModelRegistry.of({
      adapters,
      register: (adapter) => adapters.register(adapter.name, adapter),
      canonical,
      aliases: Effect.map(adapters.entries, (entries) => {
        const merged: Record<string, string> = {}
        for (const [, a] of entries) for (const [k, v] of Object.entries(a.aliases ?? {})) merged[k] ??= v
        return { ...merged, ...own }
      }),
      resolve: (spec, config = {}) =>
        Effect.gen(function*() {
          if (spec.trim() === "") return yield* configurationError(`empty model spec "${spec}"`)
          // `nope:model` names an adapter: a missing one is a RegistryError listing those there are.
          const { adapter, model } = parseModelSpec(yield* canonical(spec))
          const found = yield* adapters.get(adapter)
          return yield* found.create(model, config)
        })
    })
  })

export const layer: Layer.Layer<ModelRegistry> = Layer.effect(ModelRegistry, make)

/** A registry holding `adapters` (e.g. `[ScriptedAdapter, OpenAIAdapter]`) and, optionally, aliases of its own. */
export const layerWith = (adapters: ReadonlyArray<ModelAdapter>, options: ModelRegistryOptions = {}): Layer.Layer<ModelRegistry, Registry.RegistryError> =>
  Layer.effect(ModelRegistry, Effect.gen(function*() {
    const registry = yield* makeWith(options)
    for (const adapter of adapters) yield* registry.adapters.registerPermanent(adapter.name, adapter)
    return registry
  }))

/** A layer that registers one adapter into the registry it is given. */
export const provide = (adapter: ModelAdapter): Layer.Layer<never, Registry.RegistryError, ModelRegistry> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* ModelRegistry
    yield* registry.register(adapter)
  }))
