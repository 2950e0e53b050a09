import type { Registry } from "@dsh/core"
import { type LlmError, type LanguageModel as LlmLanguageModel, ModelRegistry } from "@dsh/llm"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { toAiError } from "./internal/errors.ts"
import { toModelRequest } from "./internal/fromPrompt.ts"
import { makeStreamEncoder, toResponseParts } from "./internal/toResponse.ts"

const logWarnings = (model: LlmLanguageModel.LanguageModelShape, warnings: ReadonlyArray<string> | undefined) =>
  Effect.forEach(warnings ?? [], (message) => Effect.logWarning(message).pipe(Effect.annotateLogs({ provider: model.provider, model: model.model })), {
    discard: true
  })

/**
 * An effect/ai `LanguageModel` over a dsh model, so `LanguageModel.generateText`,
 * `streamText` and `Chat` run on any dsh adapter (the scripted model included). effect/ai
 * keeps its own features: with a toolkit it runs the tools and loops as usual. dsh warnings
 * (parts the adapter could not send) are logged; `LlmError`s become `AiError`s.
 */
export const toEffectAi = (model: LlmLanguageModel.LanguageModelShape): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    generateText: (options) =>
      model.generate(toModelRequest(options, model.provider)).pipe(
        Effect.tap((response) => logWarnings(model, response.warnings)),
        Effect.map(toResponseParts),
        Effect.mapError((error) => toAiError("generateText", error))
      ),
    streamText: (options) =>
      Stream.suspend(() => {
        const encoder = makeStreamEncoder()
        return model.stream(toModelRequest(options, model.provider)).pipe(
          Stream.mapError((error) => toAiError("streamText", error)),
          Stream.mapEffect((part) =>
            part.type === "warning" ? Effect.as(logWarnings(model, [part.message]), []) : Effect.succeed(encoder.push(part))
          ),
          Stream.concat(Stream.sync(() => encoder.end())),
          Stream.flattenIterable
        )
      })
  })

/** A layer providing effect/ai's `LanguageModel` from a dsh model. */
export const layerFromModel = (model: LlmLanguageModel.LanguageModelShape): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, toEffectAi(model))

/** A layer providing effect/ai's `LanguageModel` from a dsh model spec (`scripted:demo`, `openai:gpt-4.1-mini`, `sonnet`). */
export const layerFromSpec = (
  spec: string,
  config?: ModelRegistry.ModelConfig
): Layer.Layer<LanguageModel.LanguageModel, LlmError.LlmError | Registry.RegistryError, ModelRegistry.ModelRegistry> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      return yield* toEffectAi(yield* registry.resolve(spec, config))
    })
  )
