import type { LanguageModelShape } from "@dsh/llm"
import { Effect } from "effect"
import { SubagentsError } from "../SubagentsError.ts"

/** A model given to the kit: a spec to resolve through the registry, or a model ready to use. */
export type ResolvedModel = { readonly _tag: "Spec"; readonly spec: string } | { readonly _tag: "Model"; readonly model: LanguageModelShape }

const isDshModel = (u: object): u is LanguageModelShape =>
  "provider" in u && "model" in u && typeof (u as { stream?: unknown }).stream === "function"

/**
 * What `model` of `createSubagents` is. The one place that tells model kinds apart.
 * TODO(@dsh/llm-ai-sdk): an AI SDK model (`specificationVersion` in the object) becomes
 * `{ _tag: "Model", model: fromAiSdk(model) }` here once that package lands.
 */
export const resolveModel = (model: unknown): Effect.Effect<ResolvedModel, SubagentsError> => {
  if (typeof model === "string") return Effect.succeed({ _tag: "Spec", spec: model })
  if (typeof model === "object" && model !== null) {
    if ("specificationVersion" in model) {
      return Effect.fail(
        new SubagentsError("UnsupportedModel", "AI SDK models need @dsh/llm-ai-sdk (not available yet): pass a dsh model spec such as \"openai:gpt-4.1-mini\" meanwhile")
      )
    }
    if (isDshModel(model)) return Effect.succeed({ _tag: "Model", model })
  }
  return Effect.fail(new SubagentsError("UnsupportedModel", "model must be a dsh model spec (\"openai:gpt-4.1-mini\", \"scripted:<file>\") or a dsh LanguageModelShape"))
}
