import { LlmError, type ModelRegistry } from "@dsh/llm"
import { Effect } from "effect"
import { type AiSdkLanguageModel, fromAiSdk } from "./FromAiSdk.ts"
import { oneLine } from "./internal/errors.ts"

/** What `aiSdkAdapter` needs of a provider: an AI SDK `ProviderV2/V3/V4`, or any object with `languageModel`. */
export interface AiSdkProvider {
  readonly languageModel: (modelId: string) => AiSdkLanguageModel
}

export interface AiSdkAdapterOptions {
  /** The adapter's registry name: the spec `<name>:<model id>` resolves through it. */
  readonly name: string
  readonly provider: AiSdkProvider
  readonly description?: string | undefined
}

/**
 * A `ModelAdapter` over an AI SDK provider: `<name>:<model id>` becomes
 * `fromAiSdk(provider.languageModel(id))`. A provider that refuses the id (it throws, e.g.
 * `NoSuchModelError`) is a `Configuration` error naming the adapter and the id.
 * Register it like any adapter: `ModelRegistry.provide(aiSdkAdapter({ name: "groq", provider: createGroq() }))`.
 */
export const aiSdkAdapter = (options: AiSdkAdapterOptions): ModelRegistry.ModelAdapter => ({
  name: options.name,
  description: options.description ?? `AI SDK provider "${options.name}"`,
  create: (model, config) =>
    Effect.gen(function*() {
      if (model.trim() === "") {
        return yield* new LlmError.LlmError({
          reason: "Configuration",
          provider: options.name,
          detail: `a model id is needed: "${options.name}:<model id>"`,
          retryable: false
        })
      }
      const languageModel = yield* Effect.try({
        try: () => options.provider.languageModel(model),
        catch: (e) =>
          new LlmError.LlmError({
            reason: "Configuration",
            provider: options.name,
            detail: `the provider refused model "${model}": ${oneLine(e instanceof Error ? e.message : String(e))}`,
            retryable: false
          })
      })
      if (typeof languageModel !== "object" || languageModel === null || typeof languageModel.doStream !== "function") {
        return yield* new LlmError.LlmError({
          reason: "Configuration",
          provider: options.name,
          detail: `languageModel("${model}") did not return an AI SDK language model`,
          retryable: false
        })
      }
      return fromAiSdk(languageModel, { provider: options.name, maxOutputTokens: config.maxOutputTokens })
    })
})
