import { type SessionError, SessionStore, StoreKit } from "@dsh/session"
import { Clock, Effect, Ref, type Scope } from "effect"
import { decodeDescriptors, logWarnings, type SubagentDescriptor } from "../Records.ts"
import { markMetaLost } from "./childMeta.ts"
import { asRecord, makeRecordMap, type RecordMap } from "./recordMap.ts"

const NOTE_DELAY = "25 millis"

/** The stored map with `changed` over it, frozen (its descriptors too): one copy of the map, which knows what it changed. */
const withDescriptors = (stored: unknown, changed: ReadonlyArray<SubagentDescriptor>): Readonly<Record<string, unknown>> =>
  StoreKit.withEntries(asRecord(stored), Object.fromEntries(changed.map((d) => [d.handle, d])))

/** Statuses that mean "some process was running this child". */
const LIVE = new Set(["queued", "running"])

/**
 * The book's write side: `changed` counts a change, `write` returns once a write including every
 * change so far has completed, `later` writes a moment after (a failure only logged).
 */
const makeWriter = (
  session: SessionStore.SessionHandle | undefined,
  scope: Scope.Scope,
  book: Pick<RecordMap, "get">,
  dirty: Set<string>
) => {
  // Changes counted, and the count the last completed write included.
  const version = Ref.makeUnsafe(0)
  const written = Ref.makeUnsafe(0)
  const rounds = StoreKit.makeRounds()

  // A write copies the stored map once (a plain object, as every reader expects), so the
  // changes waiting are taken together: a write first lets every fiber that is ready record
  // its change, and while one is under way later callers wait for its end (one round at a
  // time), then the first of them to run writes for all the others. 10,000 children finishing
  // at once share a few writes, and no caller writes for others for longer than one write. The
  // new map is frozen with its descriptors, so the store's snapshot does not walk it again.
  const writeOnce = (session: SessionStore.SessionHandle): Effect.Effect<void, SessionError.SessionError> =>
    Effect.yieldNow.pipe(Effect.andThen(Effect.suspend(() => {
      const target = Ref.getUnsafe(version)
      if (Ref.getUnsafe(written) >= target) return Effect.void
      const changed: Array<SubagentDescriptor> = []
      for (const h of dirty) {
        const d = book.get(h)
        if (d !== undefined) changed.push(d)
      }
      dirty.clear()
      // Nothing waits (the writes that took the changes have completed): nothing to copy.
      if (changed.length === 0) return Ref.update(written, (n) => Math.max(n, target))
      return session.updateState((s) => ({ ...s, subagents: withDescriptors(s.subagents, changed) })).pipe(
        // Failed or interrupted: the changes wait for the next write.
        Effect.onError(() => Effect.sync(() => changed.forEach((d) => dirty.add(d.handle)))),
        Effect.andThen(Ref.update(written, (n) => Math.max(n, target)))
      )
    })))
  /** Returns once a write that includes every change made so far has completed. */
  const write: Effect.Effect<void, SessionError.SessionError> = Effect.suspend(() => {
    if (session === undefined) return Effect.void
    const target = Ref.getUnsafe(version)
    return rounds.unlessDone(() => Ref.getUnsafe(written) >= target, writeOnce(session))
  })

  const scheduled = Ref.makeUnsafe(false)
  const later = Effect.flatMap(Ref.getAndSet(scheduled, true), (already) =>
    already ? Effect.void : Effect.forkIn(
      Effect.sleep(NOTE_DELAY).pipe(
        Effect.andThen(Ref.set(scheduled, false)),
        Effect.andThen(write),
        Effect.ignore({ log: "Warn", message: "could not write child descriptors to state.json (retried with the next change)" })
      ),
      scope
    ).pipe(Effect.asVoid))
  return { changed: Ref.update(version, (n) => n + 1), write, later }
}

/** One child's stored record changed in one read-modify-write, without writing the rest of the book. */
const patchStored = (
  session: SessionStore.SessionHandle,
  handle: string,
  local: SubagentDescriptor | undefined,
  f: (d: SubagentDescriptor) => SubagentDescriptor
): Effect.Effect<SubagentDescriptor | undefined, SessionError.SessionError> =>
  SessionStore.modifyState(session, (s) => {
    const stored = decodeDescriptors({ subagents: { [handle]: asRecord(s.subagents)[handle] } }).records[0] ?? local
    if (stored === undefined) return [undefined, s] as const
    const patched = f(stored)
    return [patched, { ...s, subagents: withDescriptors(s.subagents, [patched]) }] as const
  })

/**
 * Child descriptors, kept in memory and written to `state.json` by a coalescing writer: a
 * writer that finds nothing changed since the last write skips, so many children changing
 * state at once share one atomic write. A write merges only the children this book changed
 * into the stored map, so several processes (runners hosting children of one session) each
 * keep their own children's records without overwriting the others'. `save` returns once a
 * write that includes the change has completed (a durable result) and fails if it could not
 * be written; `note` does not wait, writes a moment later and only logs a failure (the next
 * save carries the change).
 *
 * `recover`: this process owns the session, so children recorded as live belong to a process
 * that is gone and are marked lost. A process that hosts children for another owner (a
 * cluster runner) passes false. `state` is the session's stored state, as the tree read it.
 */
export const makeDescriptorBook = (
  session: SessionStore.SessionHandle | undefined,
  state: SessionStore.SessionState | undefined,
  scope: Scope.Scope,
  recover = true
) =>
  Effect.gen(function*() {
    // The owner decodes every record now (and reports those that do not decode); a hosting
    // tree decodes the records its run asks for.
    const decoded = !recover ? undefined : state === undefined ? { records: [], warnings: [] } : decodeDescriptors(state)
    if (decoded !== undefined) yield* logWarnings(decoded.warnings)
    const book = makeRecordMap(state, decoded)
    const dirty = new Set<string>()
    // Children this process recorded: another process's records never overwrite them here.
    const mine = new Set<string>()
    const { changed, write, later } = makeWriter(session, scope, book, dirty)

    // Who hears of every changed record (the archiver), so nobody sweeps the whole book per change.
    const listeners: Array<(handle: string) => void> = []
    const changedHere = (handle: string) => {
      for (const listen of listeners) listen(handle)
    }
    const set = (d: SubagentDescriptor) =>
      Effect.sync(() => {
        book.set(d)
        dirty.add(d.handle)
        mine.add(d.handle)
      }).pipe(Effect.andThen(changed), Effect.andThen(Effect.sync(() => changedHere(d.handle))))

    // A child recorded as queued or running belongs to a process that is gone (this one just
    // started): it is `lost` — a runtime fact, never a guess — and stays continuable.
    const lost = recover ? book.values().filter((d) => LIVE.has(d.status)) : []
    if (lost.length > 0) {
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      for (const d of lost) yield* set({ ...d, status: "lost", updatedAt: at })
      yield* write
      // The child's own meta.json, which its dead driver left saying `running`, agrees.
      if (session !== undefined) yield* Effect.forEach(lost, (d) => markMetaLost(session, d.handle, at), { discard: true })
    }

    const merge = (state: Readonly<Record<string, unknown>>) => {
      for (const d of book.changedIn(state)) {
        if (mine.has(d.handle)) continue
        const known = book.get(d.handle)
        // The same decoded record as last time (its stored value did not change): nothing to learn.
        if (known === d) continue
        book.set(d)
        const same = known !== undefined && known.updatedAt === d.updatedAt && known.status === d.status && known.runId === d.runId && known.archivedAt === d.archivedAt
        if (!same) changedHere(d.handle)
      }
    }

    return {
      get: (handle: string) => book.get(handle),
      all: () => book.values(),
      /** Calls `listen` with the handle of every record changed from now on (here or merged). */
      onChange: (listen: (handle: string) => void) => void listeners.push(listen),
      /** Handles that were found running when this book was loaded, now marked lost. */
      lostOnLoad: lost.map((d) => d.handle),
      note: (d: SubagentDescriptor) => set(d).pipe(Effect.andThen(later)),
      /**
       * Learns from a state read from the store what other processes recorded (a grandchild
       * admitted on a runner, and how it ended); the records this process wrote stay as here.
       */
      merge,
      /** `merge` with the state as the store holds it now. */
      refresh: Effect.suspend(() => (session === undefined ? Effect.void : Effect.map(session.readState, merge))),
      /**
       * Changes one child's stored record in one read-modify-write of the store (e.g. its
       * continuation, from the process that runs it), without writing the rest of this book.
       */
      patch: (handle: string, f: (d: SubagentDescriptor) => SubagentDescriptor): Effect.Effect<void, SessionError.SessionError> =>
        Effect.gen(function*() {
          const local = book.get(handle)
          if (session === undefined) {
            if (local !== undefined) book.set(f(local))
            return
          }
          const patched = yield* patchStored(session, handle, local, f)
          if (patched !== undefined) {
            book.set(patched)
            changedHere(handle)
          }
        }),
      save: (d: SubagentDescriptor): Effect.Effect<void, SessionError.SessionError> => set(d).pipe(Effect.andThen(write)),
      /** Several changes in one durable write. */
      saveAll: (ds: ReadonlyArray<SubagentDescriptor>): Effect.Effect<void, SessionError.SessionError> =>
        Effect.forEach(ds, set, { discard: true }).pipe(Effect.andThen(write))
    }
  })

export type DescriptorBook = Effect.Success<ReturnType<typeof makeDescriptorBook>>
