import { Clock, Deferred, Effect } from "effect"
import type { Activation } from "./internal/activations.ts"
import { SubagentError } from "./SubagentError.ts"
import type { SubagentTree } from "./SubagentTree.ts"
import type { AcceptedRun } from "./Vocabulary.ts"

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Whether a foreground caller waits on this run and would let go of it, and it is not settling yet. */
const detachable = (activation: Activation | undefined) =>
  activation?.detach !== undefined && activation.announce === undefined && activation.settling !== true

/** Moves one waiting foreground run to the background; undefined when it cannot be (settling, or not waited on). */
const detachOne = (tree: SubagentTree, activation: Activation) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const createdAt = yield* isoNow
    const d = tree.descriptors.get(activation.handle)
    const detach = activation.detach
    if (d === undefined || detach === undefined || !detachable(activation)) return undefined
    const base = { runId: d.runId, handle: d.handle, agent: d.agent, parent: d.parent, createdAt, delivered: false }
    // Set with the check, no yield between: the run's `finish` reads it as it starts settling.
    activation.announce = (result) =>
      Deferred.await(started).pipe(
        Effect.andThen(isoNow),
        Effect.flatMap((endedAt) => tree.announcements.finished({ ...base, status: result.status, endedAt, result }))
      )
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
    const running = tree.activations.handles().filter((h) => detachable(tree.activations.get(h)) && tree.isReachable(h, from))
    const refuse = (why: string) =>
      new SubagentError({ reason: "InvalidRequest", message: `${handle} cannot be detached: ${why}; detachable now: ${running.join(", ") || "(none)"}` })
    if (activation === undefined) return yield* refuse(`it is not running (${d.status})`)
    if (activation.announce !== undefined || d.background === true) return yield* refuse("it already runs in the background")
    if (activation.detach === undefined) return yield* refuse("its caller waits for it and cannot let go of it")
    const run = yield* detachOne(tree, activation)
    if (run === undefined) return yield* refuse("it is finishing")
    return [run]
  })
