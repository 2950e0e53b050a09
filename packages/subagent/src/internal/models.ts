import type { Registry } from "@dsh/core"
import { type LanguageModel, type LlmError, ModelSpec } from "@dsh/llm"
import { Effect } from "effect"
import type { ChildModel } from "../Vocabulary.ts"

/** Where a candidate model spec came from, in precedence order. */
export type ModelSource = "previous run" | "call" | "agent type" | "requester's subagentDefaults" | "subagents default"

export interface ModelCandidate {
  readonly source: ModelSource
  readonly spec: string
}

/** The `provider:model` label of a model, as usage events name it. */
export const modelLabel = (model: LanguageModel.LanguageModelShape): string => `${model.provider}:${model.model}`

/**
 * The model a child runs with: the first candidate that resolves, in order (a previous run's
 * model on continue, the call's override, the agent type's `model`, the requesting agent's
 * `subagentDefaults.model`, the tree's default for children), else the parent's. `inherit` stops at the parent's. A candidate that does not
 * resolve is skipped with a note saying why and what is used instead.
 */
export const chooseChildModel = (
  candidates: ReadonlyArray<ModelCandidate>,
  parent: LanguageModel.LanguageModelShape,
  resolve: (spec: string) => Effect.Effect<LanguageModel.LanguageModelShape, LlmError.LlmError | Registry.RegistryError>
): Effect.Effect<{ readonly chosen: ChildModel; readonly notes: ReadonlyArray<string> }> =>
  Effect.gen(function*() {
    const skipped: Array<string> = []
    let chosen: ChildModel | undefined
    for (const candidate of candidates) {
      const spec = candidate.spec.trim()
      if (spec === ModelSpec.INHERIT_MODEL) break
      const resolved = yield* resolve(spec).pipe(Effect.result)
      if (resolved._tag === "Success") {
        chosen = { spec: modelLabel(resolved.success), model: resolved.success }
        break
      }
      const failure = resolved.failure
      const why = failure._tag === "LlmError" ? failure.detail : failure.message
      skipped.push(`the ${candidate.source}'s model "${spec}" cannot be used (${why.split("\n")[0]})`)
    }
    const final = chosen ?? { spec: modelLabel(parent), model: parent }
    const notes = skipped.length === 0 ? [] : [`${skipped.join("; ")}; it ran on ${final.spec}`]
    return { chosen: final, notes }
  })
