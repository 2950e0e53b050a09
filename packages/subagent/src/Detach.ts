import { Clock, Deferred, Effect, Ref } from "effect"
import { type Activation, detachRun, isDetachable, isDetached } from "./internal/activations.ts"
import { SubagentError } from "./SubagentError.ts"
import type { SubagentTree } from "./SubagentTree.ts"
import type { AcceptedRun } from "./Vocabulary.ts"

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Moves one waiting foreground run to the background; undefined when it cannot be (settling, or not waited on). */
const detachOne = (tree: SubagentTree, activation: Activation) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const createdAt = yield* isoNow
    const d = tree.descriptors.get(activation.handle)
    if (d === undefined) return undefined
    const base = { runId: d.runId, handle: d.handle, agent: d.agent, parent: d.parent, createdAt, delivered: false }
    // Checked and switched in one step: the run's `finish` takes this announce as it starts settling, or refuses it.
    const detach = yield* detachRun(activation, (result) =>
      Deferred.await(started).pipe(
        Effect.andThen(isoNow),
        Effect.flatMap((endedAt) => tree.announcements.finished({ ...base, status: result.status, endedAt, result }))
      ))
    if (detach === undefined) return undefined
    // The same durable path as a background child's: `tasks/<runId>.json` says it runs, the
    // parent's wake loop waits for it, a restart announces it (as lost) exactly once.
    yield* tree.announcements.started({ ...base, status: "running" })
    yield* Deferred.succeed(started, undefined)
    yield* tree.descriptors.patch(d.handle, (x) => ({ ...x, background: true })).pipe(
      Effect.ignore({ log: "Warn", message: `could not record that ${d.handle} runs in the background` })
    )
    const accepted: AcceptedRun = { status: "accepted", runId: d.runId, handle: d.handle }
    yield* Deferred.succeed(detach, accepted)
    return accepted
  })

/**
 * Moves running foreground children to the background (Ctrl+B, `kit.detach`): the call that
 * waits for each returns `{status: "accepted", handle, runId}` at once, and the child's outcome
 * is announced to its parent later, exactly once, as a background child's is. `handle` is a
 * child `from` may reach, or `all`: every foreground child of `from` itself (`user` means
 * the main agent's) that is still running. Returns the runs detached.
 */
export const detachChild = (tree: SubagentTree, handle: string, from: string): Effect.Effect<ReadonlyArray<AcceptedRun>, SubagentError> =>
  Effect.gen(function*() {
    const parent = from === "user" ? "main" : from
    if (handle === "all") {
      const mine = tree.activations.handles().filter((h) => tree.descriptors.get(h)?.parent === parent)
      const detached: Array<AcceptedRun> = []
      for (const h of mine) {
        const activation = tree.activations.get(h)
        const run = activation === undefined ? undefined : yield* detachOne(tree, activation)
        if (run !== undefined) detached.push(run)
      }
      return detached
    }
    const d = tree.descriptors.get(handle)
    if (d === undefined || !tree.isReachable(handle, from)) {
      const known = tree.descriptors.all().filter((x) => tree.isReachable(x.handle, from)).map((x) => x.handle)
      return yield* new SubagentError({ reason: "UnknownHandle", message: `no child is named "${handle}"; yours: ${known.join(", ") || "(none)"}` })
    }
    const activation = tree.activations.get(handle)
    const reachable = tree.activations.handles().filter((h) => tree.isReachable(h, from))
    const states = yield* Effect.forEach(reachable, (h) => tree.activations.state(h))
    const running = reachable.filter((_, i) => states[i] !== undefined && isDetachable(states[i]))
    const refuse = (why: string) =>
      new SubagentError({ reason: "InvalidRequest", message: `${handle} cannot be detached: ${why}; detachable now: ${running.join(", ") || "(none)"}` })
    if (activation === undefined) return yield* refuse(`it is not running (${d.status})`)
    const state = yield* Ref.get(activation.state)
    if (isDetached(state.mode) || d.background === true) return yield* refuse("it already runs in the background")
    if (state.detach === undefined) return yield* refuse("its caller waits for it and cannot let go of it")
    const run = yield* detachOne(tree, activation)
    if (run === undefined) return yield* refuse("it is finishing")
    return [run]
  })
