import type { Records, Vocabulary } from "@dsh/subagent"
import { Clock, Effect, Ref } from "effect"

/** What a run learns about its child as it goes; every field is written once known. */
export type MetaPatch = Partial<Omit<Records.ChildMeta, "handle" | "runId" | "agent" | "provider" | "parent" | "depth" | "model" | "startedAt">>

export const iso = (ms: number): string => new Date(ms).toISOString()

/**
 * The child's `agents/<handle>/meta.json` for one run, in the one typed shape every driver
 * writes: `starting` at once, then each fact as it becomes known (command and cwd, pid,
 * `running`, agentInfo, session id), then how the run ended. Without a store it is kept in
 * memory only. A write that fails is logged and never fails the run.
 */
export const makeMetaWriter = (context: Vocabulary.StartContext, modelSpec: string) =>
  Effect.gen(function*() {
    const meta = yield* Ref.make<Records.ChildMeta>({
      handle: context.handle,
      runId: context.runId,
      agent: context.type.name,
      provider: context.type.provider,
      parent: context.parent.handle,
      depth: context.parent.depth + 1,
      model: modelSpec,
      status: "starting",
      startedAt: iso(yield* Clock.currentTimeMillis)
    })
    const store = context.store
    const write = (patch: MetaPatch): Effect.Effect<void> =>
      Effect.gen(function*() {
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as MetaPatch
        const next = yield* Ref.updateAndGet(meta, (m): Records.ChildMeta => ({ ...m, ...defined }))
        if (store === undefined) return
        yield* store.writeMeta(next).pipe(Effect.ignore({ log: "Warn", message: `could not write ${context.handle}'s meta.json` }))
      })
    yield* write({})
    return { write, current: Ref.get(meta) }
  })
