import type { Duration } from "effect"
import { Deferred, Effect } from "effect"
import type { SubagentDescriptor, SubagentResult } from "../Records.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { Catalog } from "./catalog.ts"
import { refuse } from "./common.ts"
import { hostActivation, type HostRequest } from "./host.ts"
import { knownChild } from "./messaging.ts"

/** Operations on children that exist already: stop, list, wait for, and host one admitted elsewhere. */
export const makeControls = (tree: SubagentTree, catalog: Catalog) => {
  const stop = Effect.fn("Subagents.stop")(function*(handle: string, from: string) {
    if (handle !== "all") yield* knownChild(tree, handle, from)
    return yield* tree.stopHeld(handle, from)
  })

  const list = (from: string) => tree.descriptors.all().filter((d) => tree.isReachable(d.handle, from))

  const wait = Effect.fn("Subagents.wait")(function*(from: string, handles: ReadonlyArray<string> | undefined, timeout: Duration.Input) {
    // Without handles: the background runs whose outcome `from` has not had yet.
    const undelivered = (d: SubagentDescriptor) =>
      tree.activations.get(d.handle) !== undefined || tree.announcements.record(d.runId)?.delivered === false
    const mine = tree.descriptors.all().filter((d) => d.parent === from && d.background === true && undelivered(d))
    const chosen = handles === undefined ? mine : yield* Effect.forEach(handles, (h) => knownChild(tree, h, from))
    const outcomes = yield* Effect.forEach(chosen, (d) => {
      const activation = tree.activations.get(d.handle)
      // Ended already: its outcome, if this process has it (announced or not), else its record.
      if (activation === undefined) return Effect.succeed<SubagentResult | SubagentDescriptor>(tree.announcements.record(d.runId)?.result ?? d)
      return Deferred.await(activation.done).pipe(
        Effect.timeoutOption(timeout),
        Effect.map((o) => (o._tag === "Some" ? o.value : tree.descriptors.get(d.handle) ?? d))
      )
    }, { concurrency: "unbounded" })
    // A parent that waited on a run has its outcome: it is not announced again.
    for (const o of outcomes) if ("output" in o) yield* tree.announcements.consume(o.runId)
    return outcomes
  })

  const host = (request: HostRequest) =>
    Effect.gen(function*() {
      const provider = yield* catalog.providerOf(request.type.provider)
      if (provider === undefined) {
        return yield* refuse("Unsupported", `${request.handle} needs the "${request.type.provider}" backend, which this process does not have`)
      }
      return yield* hostActivation(tree, provider, request)
    })

  return { stop, list, wait, host }
}
