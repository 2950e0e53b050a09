import type { LanguageModel } from "@dsh/llm"
import { Effect } from "effect"
import { SubagentsError } from "../SubagentsError.ts"

/** A model given to the kit: a spec to resolve through the registry, or a model ready to use. */
export type ResolvedModel = { readonly _tag: "Spec"; readonly spec: string } | { readonly _tag: "Model"; readonly model: LanguageModel.LanguageModelShape }

const isDshModel = (u: object): u is LanguageModel.LanguageModelShape =>
  "provider" in u && "model" in u && typeof (u as { stream?: unknown }).stream === "function"

/**
 * What `model` of `createSubagents` is. The one place that tells model kinds apart: a spec, an
 * AI SDK language model (`specificationVersion`: V2–V4, bridged by `@dsh/llm-ai-sdk`, loaded
 * only for one), or a dsh model.
 */
export const resolveModel = (model: unknown): Effect.Effect<ResolvedModel, SubagentsError> => {
  if (typeof model === "string") return Effect.succeed({ _tag: "Spec", spec: model })
  if (typeof model === "object" && model !== null) {
    if ("specificationVersion" in model) {
      const version = (model as { specificationVersion?: unknown }).specificationVersion
      if (version !== "v2" && version !== "v3" && version !== "v4") {
        return Effect.fail(new SubagentsError("UnsupportedModel", `an AI SDK model of specification ${String(version)}: dsh takes v2, v3 and v4`))
      }
      return Effect.tryPromise({
        try: () => import("@dsh/llm-ai-sdk"),
        catch: (e) => new SubagentsError("UnsupportedModel", `AI SDK models need @dsh/llm-ai-sdk: ${e instanceof Error ? e.message : String(e)}`)
      }).pipe(Effect.flatMap(({ FromAiSdk: { fromAiSdk } }) =>
        Effect.try({
          try: (): ResolvedModel => ({ _tag: "Model", model: fromAiSdk(model as Parameters<typeof fromAiSdk>[0]) }),
          catch: (e) => new SubagentsError("UnsupportedModel", `not an AI SDK language model dsh can use: ${e instanceof Error ? e.message : String(e)}`)
        })
      ))
    }
    if (isDshModel(model)) return Effect.succeed({ _tag: "Model", model })
  }
  return Effect.fail(
    new SubagentsError("UnsupportedModel", "model must be a dsh model spec (\"openai:gpt-4.1-mini\", \"scripted:<file>\"), an AI SDK language model or a dsh LanguageModelShape")
  )
}
