import { Deferred, Effect, type Fiber } from "effect"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AcceptedRun, ParentInfo, SpawnRequest } from "../Vocabulary.ts"
import { type Activation, makeDetachable } from "./activations.ts"
import type { Admit } from "./admission.ts"
import type { Catalog } from "./catalog.ts"
import { refuse } from "./common.ts"
import { awaitDetachable, stopUnlessDetached } from "./detachable.ts"
import type { Launcher } from "./launch.ts"
import type { BatchEntry } from "./outcomes.ts"

/** New children: one (foreground, detachable or background) or a batch, admitted then launched. */
export const makeSpawning = (tree: SubagentTree, catalog: Catalog, admit: Admit, launcher: Launcher) => {
  const { activate, activateDetachable, announced } = launcher

  const spawn = Effect.fn("Subagents.spawn")(function*(request: SpawnRequest, parent: ParentInfo) {
    const a = yield* admit({ ...request, background: false }, parent)
    yield* activate({ tree, ...a, request, parent }, false)
    return yield* Deferred.await(a.activation.done)
  })

  const spawnDetachable = Effect.fn("Subagents.spawn")(function*(request: SpawnRequest, parent: ParentInfo) {
    const a = yield* admit({ ...request, background: false }, parent)
    return yield* activateDetachable({ tree, ...a, request, parent })
  })

  const spawnBackground = Effect.fn("Subagents.spawnBackground")(function*(request: SpawnRequest, parent: ParentInfo) {
    const a = yield* admit({ ...request, background: true }, parent)
    const announce = yield* announced(parent.handle, a.type.name, a.handle, a.runId)
    yield* activate({ tree, ...a, request: { ...request, background: true }, parent, announce }, true)
    return { status: "accepted", runId: a.runId, handle: a.handle } satisfies AcceptedRun
  })

  /** Refused as a whole before anything starts: an unknown or forbidden type, or no room. */
  const checkBatch = (requests: ReadonlyArray<SpawnRequest>, parent: ParentInfo) =>
    Effect.gen(function*() {
      for (const request of requests) yield* catalog.resolveType(request, parent)
      const room = yield* tree.childCapacity
      if (requests.length > room) {
        return yield* refuse(
          "ChildLimit",
          `${requests.length} children do not fit: this session has room for ${room} more (max_children ${tree.limits.maxChildren}); use fewer items or continue existing children`
        )
      }
    })

  const spawnAll = Effect.fn("Subagents.spawnAll")(function*(
    requests: ReadonlyArray<SpawnRequest>,
    parent: ParentInfo,
    batchOptions?: { readonly background?: boolean | undefined; readonly detachable?: boolean | undefined }
  ) {
    const background = batchOptions?.background === true
    yield* checkBatch(requests, parent)
    // Detachable items run in the tree's scope: if this call is interrupted (before or while
    // it waits), those not detached are stopped, as child fibers of the call would be.
    const forked: Array<readonly [Activation, Fiber.Fiber<unknown, unknown>]> = []
    /** One admitted item started: what waiting for it yields. */
    const launch = (request: SpawnRequest, a: Effect.Success<ReturnType<Admit>>) =>
      Effect.gen(function*() {
        const { activation, handle, runId, type } = a
        if (background) {
          const announce = yield* announced(parent.handle, type.name, handle, runId)
          yield* activate({ tree, ...a, request: { ...request, background: true }, parent, announce }, true)
          return Effect.succeed<BatchEntry>({ _tag: "Accepted", run: { status: "accepted", runId, handle } })
        }
        if (batchOptions?.detachable === true) {
          yield* makeDetachable(activation)
          const fiber = yield* activate({ tree, ...a, request: { ...request, background: false }, parent }, false, true)
          forked.push([activation, fiber])
          return Effect.map(awaitDetachable(activation, fiber), (r): BatchEntry => (r.status === "accepted" ? { _tag: "Accepted", run: r } : { _tag: "Settled", result: r }))
        }
        yield* activate({ tree, ...a, request: { ...request, background: false }, parent }, false)
        return Effect.map(Deferred.await(activation.done), (result): BatchEntry => ({ _tag: "Settled", result }))
      })
    return yield* Effect.gen(function*() {
      const admitted: Array<Effect.Effect<BatchEntry>> = []
      for (const request of requests) {
        const a = yield* admit({ ...request, background }, parent).pipe(Effect.result)
        admitted.push(a._tag === "Failure" ? Effect.succeed({ _tag: "Refused", error: a.failure }) : yield* launch(request, a.success))
      }
      return yield* Effect.all(admitted, { concurrency: "unbounded" })
    }).pipe(Effect.onInterrupt(() => stopUnlessDetached(forked)))
  })

  return { spawn, spawnDetachable, spawnBackground, spawnAll }
}

