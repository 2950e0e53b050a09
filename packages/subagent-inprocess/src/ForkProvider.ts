import { Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import { runInProcess } from "./InProcessDriver.ts"
import { Effect, Schema } from "effect"
import { forkSeed } from "./ForkSeed.ts"

/** What a fork keeps of its parent, stored in the child's continuation envelope. */
export const ForkState = Schema.Struct({
  systemPrompt: Schema.String,
  toolPolicy: Schema.optional(Schema.Struct({
    tools: Schema.optional(Schema.Array(Schema.String)),
    disallowedTools: Schema.optional(Schema.Array(Schema.String))
  }))
})
export type ForkState = typeof ForkState.Type

const refused = (notes: string): Vocabulary.ChildOutcome => ({ status: "failed", output: "", usage: Usage.emptyUsage, notes })

const start = (context: Vocabulary.StartContext): Effect.Effect<Vocabulary.ChildOutcome> =>
  Effect.gen(function*() {
    const { parent, request, store } = context
    if (request.model !== undefined) return refused("a fork keeps its parent's model; drop the model override or use another agent type")
    if (parent.history === undefined || parent.systemPrompt === undefined) {
      return refused("this parent cannot be forked: its conversation is not available here (delegate through the subagent tool of a turn); use another agent type")
    }
    const state: ForkState = {
      systemPrompt: parent.systemPrompt,
      toolPolicy: { tools: parent.definition.tools, disallowedTools: parent.definition.disallowedTools }
    }
    yield* context.saveContinuation(state)
    const seed = forkSeed(yield* parent.history, { provider: context.model.model.provider })
    // The seed goes into the child's own transcript, so a cold resume rebuilds the same context;
    // a fork whose seed is not on disk would resume without it, so failing to write it fails the run.
    if (store !== undefined) {
      const written = yield* Effect.forEach(seed, (message) => store.transcript.append({ type: "message", message }), { discard: true }).pipe(
        Effect.andThen(store.transcript.sync),
        Effect.result
      )
      if (written._tag === "Failure") return refused(`could not write the fork's copy of its parent's conversation: ${written.failure.message}`)
    }
    return yield* runInProcess({
      context,
      prompt: request.prompt,
      systemPrompt: state.systemPrompt,
      policy: state.toolPolicy,
      ...(store === undefined ? { seed } : {})
    })
  })

/**
 * The `fork` backend: an in-process child seeded with its parent's completed-turn prefix
 * (the delegation call closed, a notice that the history is reference only). It keeps the
 * parent's model, system prompt and tools; overrides are refused. Cold-resumable: the seed
 * is part of its transcript, and what it kept of the parent is its continuation (`ForkState`).
 */
export const ForkProvider: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "fork",
  description: "an in-process child that starts from a copy of its parent's conversation",
  start,
  continue: (context) => {
    const state = context.continuation as ForkState
    return runInProcess({ context, prompt: context.message, systemPrompt: state.systemPrompt, policy: state.toolPolicy })
  },
  continuation: { version: 1, schema: ForkState },
  keepsParentModel: true,
  runsSubagentStop: true
}

/** The built-in `fork` type: a copy of the caller that starts from its conversation. */
export const ForkType: Vocabulary.AgentType = {
  name: "fork",
  description: "a copy of you that starts from this conversation (keeps your model, prompt and tools); " +
    "use it for a side task that needs what you already know",
  provider: "fork",
  definition: {
    name: "fork",
    description: "a copy of the caller, seeded with its conversation",
    systemPrompt: "",
    override: false,
    scope: "builtin",
    source: "builtin:fork"
  }
}

/** The fork backend with its `fork` type, as a harness registers it. */
export const ForkBackend: Vocabulary.SubagentBackend = { provider: ForkProvider, types: [ForkType] }
