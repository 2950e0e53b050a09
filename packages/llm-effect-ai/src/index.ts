/**
 * @dsh/llm-effect-ai: a bridge both ways between dsh's model seam and `effect/ai`. Any layer
 * providing effect/ai's `LanguageModel` is a dsh model (`fromEffectAi`, `effectAiAdapter` for
 * the `ModelRegistry`); any dsh model is an effect/ai `LanguageModel` (`toEffectAi`,
 * `layerFromModel`, `layerFromSpec`), so `Chat`, `generateText` and `streamText` run on it.
 */
export * as FromEffectAi from "./FromEffectAi.ts"
export * as ToEffectAi from "./ToEffectAi.ts"
