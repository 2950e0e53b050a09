import { type Events, Usage } from "@dsh/core"
import { Effect } from "effect"
import type { ChildOutcome, StartContext, SubagentProvider } from "../Vocabulary.ts"

/** What the fixture child does for one run. */
export type FixtureReply =
  | { readonly output: string; readonly status?: Events.RunStatus | undefined; readonly tokens?: number | undefined; readonly delayMs?: number | undefined; readonly notes?: string | undefined }
  | { readonly hang: true }
  | { readonly crash: string }

export interface FixtureProvider extends SubagentProvider {
  /** Every start/continue the fixture received, in order. */
  readonly calls: ReadonlyArray<{ readonly kind: "start" | "continue"; readonly handle: string; readonly prompt: string; readonly agent: string }>
}

/**
 * A provider that stands in for real children: `reply` decides each run's outcome from
 * the request. Hangs last until the run is interrupted (timeouts, cancellation).
 */
export const make = (options: {
  readonly name?: string | undefined
  readonly reply: (call: { readonly prompt: string; readonly agent: string; readonly handle: string; readonly index: number }) => FixtureReply
}): FixtureProvider => {
  const calls: Array<FixtureProvider["calls"][number]> = []
  const run = (kind: "start" | "continue", context: StartContext, prompt: string): Effect.Effect<ChildOutcome> =>
    Effect.gen(function*() {
      const index = calls.length
      calls.push({ kind, handle: context.handle, prompt, agent: context.type.name })
      const reply = options.reply({ prompt, agent: context.type.name, handle: context.handle, index })
      // Like a real child, it keeps a transcript: what it was told, and what it answered.
      const record = (role: "user" | "assistant", content: string) =>
        context.store === undefined ? Effect.void : context.store.transcript.append({ type: "message", message: { role, content } }).pipe(Effect.ignore)
      yield* record("user", prompt)
      if ("hang" in reply) return yield* Effect.never
      if ("crash" in reply) return yield* Effect.die(new Error(reply.crash))
      if (reply.delayMs !== undefined) yield* Effect.sleep(reply.delayMs)
      yield* record("assistant", reply.output)
      return {
        status: reply.status ?? "completed",
        output: reply.output,
        usage: reply.tokens === undefined ? Usage.emptyUsage : Usage.make(reply.tokens, 0),
        ...(reply.notes === undefined ? {} : { notes: reply.notes })
      }
    })
  return {
    specificationVersion: "v1",
    name: options.name ?? "fixture",
    description: "scripted stand-in for child agents (tests)",
    calls,
    start: (context) => run("start", context, context.request.prompt),
    continue: (context) => run("continue", context, context.message)
  }
}
