import { type LlmError, LanguageModel as LlmLanguageModel, type ModelRegistry } from "@dsh/llm"
import { Effect, type Layer, Stream } from "effect"
import { type AiError, LanguageModel } from "effect/ai"
import { toLlmError } from "./internal/errors.ts"
import { type AnyStreamPart, makePartMapper } from "./internal/fromResponse.ts"
import { toPromptInput, toToolkit } from "./internal/toPrompt.ts"

/** What a dsh model built from effect/ai calls itself. */
export interface EffectAiModelOptions {
  /** The dsh provider name errors and traces carry, e.g. `effect-ai` or the adapter's name. */
  readonly provider: string
  /** The model id, e.g. `gpt-4.1-mini`. */
  readonly model: string
}

const streamWith = (
  service: LanguageModel.LanguageModel,
  provider: string,
  request: LlmLanguageModel.ModelRequest
): Stream.Stream<LlmLanguageModel.StreamPart, LlmError.LlmError> =>
  Stream.suspend(() => {
    const mapper = makePartMapper(provider)
    const toolkit = toToolkit(request.tools)
    const { prompt, warnings } = toPromptInput(request.messages)
    // dsh runs the tools: effect/ai must hand every call back untouched, known or not (also when
    // no tools are offered). The toolkit's tools are typed `Tool.Any` (services `any`): with
    // resolution off, none are needed.
    const parts = (toolkit === undefined
      ? service.streamText({ prompt, disableToolCallResolution: true, toolCallValidation: "deferred" })
      : service.streamText({ prompt, toolkit, disableToolCallResolution: true, toolCallValidation: "deferred" })) as Stream.Stream<
        AnyStreamPart,
        AiError.AiError
      >
    const warningParts = warnings.map((message): LlmLanguageModel.StreamPart => ({ type: "warning", message: `${provider}: ${message}` }))
    return Stream.fromIterable(warningParts).pipe(
      Stream.concat(parts.pipe(
        Stream.mapError((error: AiError.AiError) => toLlmError(provider, error)),
        Stream.mapEffect(mapper.push),
        Stream.flattenIterable
      ))
    )
  })

/**
 * A dsh model over an effect/ai `LanguageModel` service (any provider's). Tool specs become
 * dynamic tools with their JSON Schemas and tool-call resolution is disabled: calls come back
 * as dsh `tool-call` parts. `maxOutputTokens`, `temperature` and `thinking` are not sent:
 * effect/ai sets them per provider, in the provider's own config layer.
 */
export const fromEffectAi = (service: LanguageModel.LanguageModel, options: EffectAiModelOptions): LlmLanguageModel.LanguageModelShape =>
  LlmLanguageModel.make({
    provider: options.provider,
    model: options.model,
    stream: (request) => streamWith(service, options.provider, request)
  })

/**
 * A dsh model over a layer that provides effect/ai's `LanguageModel`. The layer is built for
 * each call and released when the call's stream ends, so its resources live no longer than
 * the request; construction failures surface as the call's `LlmError`.
 */
export const fromEffectAiLayer = (
  layer: Layer.Layer<LanguageModel.LanguageModel, AiError.AiError | LlmError.LlmError>,
  options: EffectAiModelOptions
): LlmLanguageModel.LanguageModelShape =>
  LlmLanguageModel.make({
    provider: options.provider,
    model: options.model,
    stream: (request) =>
      Stream.unwrap(Effect.gen(function*() {
        const service = yield* LanguageModel.LanguageModel
        return streamWith(service, options.provider, request)
      })).pipe(
        Stream.provide(layer),
        Stream.mapError((e) => (e._tag === "AiError" ? toLlmError(options.provider, e) : e))
      )
  })

/** How to register effect/ai models in dsh's `ModelRegistry` under one name. */
export interface EffectAiAdapterOptions {
  /** The spec prefix: `name:<model id>` resolves through `layer`. */
  readonly name: string
  readonly description?: string | undefined
  /** The effect/ai model for a model id (the spec after `name:`), given the registry's config. */
  readonly layer: (modelId: string, config: ModelRegistry.ModelConfig) => Layer.Layer<LanguageModel.LanguageModel, AiError.AiError | LlmError.LlmError>
  readonly aliases?: ModelRegistry.ModelAdapter["aliases"]
  readonly modelIds?: ModelRegistry.ModelAdapter["modelIds"]
}

/**
 * A dsh `ModelAdapter` for effect/ai models: register it with
 * `ModelRegistry.provide(effectAiAdapter({ name: "openai-effect", layer: (id) => OpenAiLanguageModel.layer({ model: id }) }))`.
 */
export const effectAiAdapter = (options: EffectAiAdapterOptions): ModelRegistry.ModelAdapter => ({
  name: options.name,
  description: options.description ?? `effect/ai models as ${options.name}:<model id>`,
  ...(options.aliases === undefined ? {} : { aliases: options.aliases }),
  ...(options.modelIds === undefined ? {} : { modelIds: options.modelIds }),
  create: (model, config) =>
    Effect.succeed(fromEffectAiLayer(options.layer(model, config), { provider: options.name, model }))
})
