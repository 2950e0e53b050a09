import type { Usage } from "@dsh/core"
import { Effect } from "effect"
import type { SubagentResult } from "../Records.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AcceptedRun } from "../Vocabulary.ts"
import { makeDetachable, setFiber } from "./activations.ts"
import { isoNow } from "./common.ts"
import { awaitDetachable } from "./detachable.ts"
import { runActivation, type RunSpec } from "./run.ts"

/**
 * Starting Activations: each in a fiber of its own (so one child can be stopped alone), a
 * background one traced on its own and announced to its parent when it ends.
 */
export const makeLauncher = (tree: SubagentTree, pricing: Usage.PriceLookup | undefined) => {
  const activate = (spec: RunSpec, background: boolean, detachable = false) =>
    Effect.gen(function*() {
      const run = runActivation({ ...spec, pricing })
      // Background runs belong to the tree, not to the task that started them: they outlive
      // the call, so their spans start a trace of their own linked to it (OpenTelemetry's way).
      const caller = yield* Effect.option(Effect.currentSpan)
      const traced = background
        ? run.pipe(Effect.withSpan(`background ${spec.handle}`, {
          root: true,
          links: caller._tag === "Some" ? [{ span: caller.value, attributes: { "dsh.link": "started-by" } }] : [],
          attributes: { "dsh.agent.handle": spec.handle, "dsh.run_id": spec.runId }
        }))
        : run
      // A detachable foreground run lives in the tree's scope too: it may outlive its caller.
      const fiber = background || detachable ? yield* Effect.forkIn(traced, tree.scope) : yield* Effect.forkChild(traced)
      yield* setFiber(spec.activation, fiber)
      return fiber
    })

  /**
   * Records a background run as started; the run's own cleanup finishes the record (so it is
   * written however the run ends, shutdown included) and announces the outcome.
   */
  const announced = (parentHandle: string, agent: string, handle: string, runId: string) =>
    Effect.gen(function*() {
      const base = { runId, handle, agent, parent: parentHandle, createdAt: yield* isoNow, delivered: false }
      yield* tree.announcements.started({ ...base, status: "running" })
      return (result: SubagentResult) =>
        Effect.flatMap(isoNow, (endedAt) => tree.announcements.finished({ ...base, status: result.status, endedAt, result }))
    })

  /** A foreground run its caller may let go of: its result, or its accepted run once detached. */
  const activateDetachable = (spec: RunSpec): Effect.Effect<SubagentResult | AcceptedRun> =>
    Effect.gen(function*() {
      yield* makeDetachable(spec.activation)
      // No interruption between the fork and the wait that stops the child when interrupted.
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(activate(spec, false, true), (fiber) => restore(awaitDetachable(spec.activation, fiber)))
      )
    })

  return { activate, announced, activateDetachable }
}

export type Launcher = ReturnType<typeof makeLauncher>
