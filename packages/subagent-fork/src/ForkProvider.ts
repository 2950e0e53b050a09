import { emptyUsage } from "@dsh/core"
import type { ChildOutcome, StartContext, SubagentProvider } from "@dsh/subagent"
import { runInProcess } from "@dsh/subagent-inprocess"
import { Effect } from "effect"
import { forkSeed } from "./ForkSeed.ts"

/** What a fork keeps of its parent, stored in the child's continuation envelope. */
interface ForkState {
  readonly systemPrompt: string
  readonly toolPolicy?: { readonly tools?: ReadonlyArray<string> | undefined; readonly disallowedTools?: ReadonlyArray<string> | undefined } | undefined
}

const refused = (notes: string): ChildOutcome => ({ status: "failed", output: "", usage: emptyUsage, notes })

const start = (context: StartContext): Effect.Effect<ChildOutcome> =>
  Effect.gen(function*() {
    const { parent, request, store } = context
    if (request.model !== undefined) return refused("a fork keeps its parent's model; drop the model override or use another agent type")
    if (parent.history === undefined || parent.systemPrompt === undefined) {
      return refused("this parent cannot be forked: its history is not available here; use another agent type")
    }
    const state: ForkState = { systemPrompt: parent.systemPrompt, toolPolicy: parent.toolPolicy }
    yield* context.saveContinuation(1, state)
    const seed = forkSeed(yield* parent.history)
    // The seed goes into the child's own transcript, so a cold resume rebuilds the same context.
    if (store !== undefined) {
      for (const message of seed) yield* store.transcript.append({ type: "message", message }).pipe(Effect.ignore)
      yield* store.transcript.sync.pipe(Effect.ignore)
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
 * is part of its transcript, and what it kept of the parent is in its continuation envelope.
 */
export const ForkProvider: SubagentProvider = {
  name: "fork",
  description: "an in-process child that starts from a copy of its parent's conversation",
  start,
  continue: (context) => {
    const state = context.continuation?.version === 1 ? (context.continuation.data as ForkState) : undefined
    return runInProcess({
      context,
      prompt: context.message,
      ...(state === undefined ? {} : { systemPrompt: state.systemPrompt, policy: state.toolPolicy })
    })
  }
}
