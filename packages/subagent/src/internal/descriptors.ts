import type { SessionError, SessionHandle } from "@dsh/session"
import { Clock, Effect, Scope, Semaphore } from "effect"
import { decodeDescriptors, logWarnings, type SubagentDescriptor } from "../Records.ts"

const NOTE_DELAY = "25 millis"

/** Statuses that mean "some process was running this child". */
const LIVE = new Set(["queued", "running"])

/**
 * Child descriptors, kept in memory and written to `state.json` by a coalescing writer: a
 * writer that finds nothing changed since the last write skips, so many children changing
 * state at once share one atomic write. `save` returns once a write that includes the change
 * has completed (a durable result) and fails if it could not be written; `note` does not wait,
 * writes a moment later and only logs a failure (the next save carries the change).
 */
export const makeDescriptorBook = (session: SessionHandle | undefined, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const state = session === undefined ? undefined : yield* session.readState
    const decoded = state === undefined ? { records: [], warnings: [] } : decodeDescriptors(state)
    yield* logWarnings(decoded.warnings)
    const book = new Map<string, SubagentDescriptor>(decoded.records.map((d) => [d.handle, d]))
    const writing = yield* Semaphore.make(1)
    let version = 0
    let written = 0

    const write: Effect.Effect<void, SessionError> = Semaphore.withPermit(writing)(Effect.suspend(() => {
      if (written >= version || session === undefined) return Effect.void
      const target = version
      const snapshot = Object.fromEntries(book)
      return session.updateState((s) => ({ ...s, subagents: snapshot })).pipe(
        Effect.andThen(Effect.sync(() => (written = Math.max(written, target))))
      )
    }))

    let scheduled = false
    const later = Effect.suspend(() => {
      if (scheduled) return Effect.void
      scheduled = true
      return Effect.forkIn(
        Effect.sleep(NOTE_DELAY).pipe(
          Effect.andThen(Effect.sync(() => (scheduled = false))),
          Effect.andThen(write),
          Effect.ignore({ log: "Warn", message: "could not write child descriptors to state.json (retried with the next change)" })
        ),
        scope
      ).pipe(Effect.asVoid)
    })

    const set = (d: SubagentDescriptor) =>
      Effect.sync(() => {
        book.set(d.handle, d)
        version++
      })

    // A child recorded as queued or running belongs to a process that is gone (this one just
    // started): it is `lost` — a runtime fact, never a guess — and stays continuable.
    const lost = [...book.values()].filter((d) => LIVE.has(d.status))
    if (lost.length > 0) {
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      for (const d of lost) yield* set({ ...d, status: "lost", updatedAt: at })
      yield* write
    }

    return {
      get: (handle: string) => book.get(handle),
      all: () => [...book.values()],
      /** Handles that were found running when this book was loaded, now marked lost. */
      lostOnLoad: lost.map((d) => d.handle),
      note: (d: SubagentDescriptor) => set(d).pipe(Effect.andThen(later)),
      save: (d: SubagentDescriptor): Effect.Effect<void, SessionError> => set(d).pipe(Effect.andThen(write)),
      /** Several changes in one durable write. */
      saveAll: (ds: ReadonlyArray<SubagentDescriptor>): Effect.Effect<void, SessionError> =>
        Effect.forEach(ds, set, { discard: true }).pipe(Effect.andThen(write))
    }
  })

export type DescriptorBook = Effect.Success<ReturnType<typeof makeDescriptorBook>>
