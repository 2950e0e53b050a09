/**
 * A session's `state.json` as the handle uses it: reads cached under the file's identity, and
 * updates group-committed under `state.lock` (shared with other processes).
 */
import { join } from "node:path"
import { Effect, Exit, Schedule, Semaphore } from "effect"
import { SessionError } from "../SessionError.ts"
import type { SessionState } from "../SessionStore.ts"
import { io, ioSync } from "./fs.ts"
import { fileIdentitySync, readTextIfExistsSync } from "./fsReads.ts"
import { writeFileAtomic, writeFileAtomicGroup } from "./fsWrites.ts"
import { type LeaseOwner, release, tryAcquire } from "./lease.ts"
import { encodeJson, notFound, nowIso, parseState, snapshot } from "./state.ts"

/** Strict: temp file and directory fsynced. Group: no fsync, one thread-pool call (see `writeFileAtomicGroup`). */
export const writeJson = (path: string, value: unknown, strict: boolean): Effect.Effect<void, SessionError> =>
  strict
    ? io("write", path, () => writeFileAtomic(path, encodeJson(value), true))
    : io("write", path, () => writeFileAtomicGroup(path, encodeJson(value)))

/** The state file of one session: what `makeStateFile` gives the handle. */
export interface StateFile {
  /** The file's identity now (`undefined` when absent): what `watchState` polls. */
  readonly probe: Effect.Effect<string | undefined, SessionError>
  readonly readState: Effect.Effect<SessionState, SessionError>
  readonly updateState: (f: (state: SessionState) => SessionState) => Effect.Effect<SessionState, SessionError>
  /** Drops the cached state (when the handle is let go). */
  readonly forget: () => void
}

/** The state file of the session in `dir`; with `strict`, every write is fsynced on its own. */
export const makeStateFile = (dir: string, id: string, strict: boolean): Effect.Effect<StateFile> =>
  Effect.gen(function*() {
    const stateLock = yield* Semaphore.make(1)
    const statePath = join(dir, "state.json")
    // Other processes update the same state (a `dsh subagents send` appends a request while the
    // owner removes the one it took): the read-modify-write holds `state.lock` across processes,
    // or one of two concurrent updates would be lost.
    const stateLockPath = join(dir, "state.lock")
    const takeStateLock = Effect.gen(function*() {
      const outcome = yield* ioSync("lock", stateLockPath, () => tryAcquire(stateLockPath, new Date())).pipe(
        Effect.repeat({ schedule: Schedule.spaced("5 millis"), while: (o) => o._tag !== "Acquired", times: 2000 })
      )
      if (outcome._tag !== "Acquired") return yield* new SessionError({ reason: "Io", detail: `${stateLockPath}: held by pid ${outcome._tag === "Owned" ? outcome.owner.pid : "?"} for too long` })
      return outcome.owner
    })
    // The file's identity after each atomic rename: inode, birth, size and modification time.
    const probe = ioSync("stat", statePath, () => fileIdentitySync(statePath))
    // The state as last read or written here, under the file's identity then: while the file is
    // the same, it is not read and decoded again (a session with hundreds of children has a state
    // of hundreds of KiB). Kept as a frozen snapshot, so no reader can change the cached copy.
    let cached: { readonly key: string; readonly state: SessionState } | undefined
    const readState: Effect.Effect<SessionState, SessionError> = Effect.gen(function*() {
      const key = yield* probe.pipe(Effect.orElseSucceed(() => undefined))
      if (key !== undefined && cached?.key === key) return cached.state
      const text = yield* ioSync("read", statePath, () => readTextIfExistsSync(statePath))
      if (text === undefined) return yield* notFound(id)
      const state = snapshot(yield* parseState(text, id, statePath))
      // Stat before the read: a file replaced in between is cached under the older identity, so
      // the next read sees a different one and reads again.
      if (key !== undefined) cached = { key, state }
      return state
    })
    // Group commit of state updates: an update queues its function, and whoever holds
    // `stateLock` next applies every queued function in call order to one read of the state and
    // writes the result once (one `state.lock`, one encode, one rename for all of them). Each
    // caller still gets the state after its own function, on disk before it returns. With 100
    // children in one turn their ~400 updates were 400 full rewrites of a growing state.json.
    interface Queued {
      readonly f: (state: SessionState) => SessionState
      taken: boolean
      result: Exit.Exit<SessionState, SessionError> | undefined
    }
    let queued: Array<Queued> = []
    const unlock = (owner: LeaseOwner) =>
      ioSync("unlock", stateLockPath, () => release(stateLockPath, owner)).pipe(Effect.ignore({ log: "Warn", message: `could not release ${stateLockPath}` }))
    const commit = (batch: ReadonlyArray<Queued>): Effect.Effect<void> =>
      Effect.acquireUseRelease(takeStateLock, () =>
        Effect.gen(function*() {
          const current = yield* readState
          const updatedAt = yield* nowIso
          const states: Array<Exit.Exit<SessionState, SessionError>> = []
          let next = current
          for (const q of batch) {
            try {
              next = snapshot({ ...q.f(next), updatedAt })
              states.push(Exit.succeed(next))
            } catch (defect) {
              // A function that throws is that caller's defect; the others still commit.
              states.push(Exit.die(defect))
            }
          }
          if (next !== current) {
            cached = undefined
            yield* writeJson(statePath, next, strict)
            // Under `state.lock`, so no other writer replaced the file since our rename.
            const key = yield* probe.pipe(Effect.orElseSucceed(() => undefined))
            if (key !== undefined) cached = { key, state: next }
          }
          return states
        }), unlock).pipe(
        Effect.exit,
        Effect.map((exit) => {
          batch.forEach((q, i) => {
            q.result = Exit.isSuccess(exit) ? (exit.value[i] ?? Exit.die("state update lost")) : Exit.failCause(exit.cause)
          })
        }),
        // Other callers' updates ride on this one: once taken, the batch is committed.
        Effect.uninterruptible
      )
    const updateState = (f: (state: SessionState) => SessionState): Effect.Effect<SessionState, SessionError> =>
      Effect.suspend(() => {
        const entry: Queued = { f, taken: false, result: undefined }
        queued.push(entry)
        return stateLock.withPermit(Effect.suspend(() => {
          if (entry.result !== undefined) return entry.result
          const batch = queued
          queued = []
          for (const q of batch) q.taken = true
          return commit(batch).pipe(Effect.andThen(Effect.suspend(() => entry.result ?? Effect.die("state update not committed"))))
        })).pipe(Effect.onInterrupt(() =>
          Effect.sync(() => {
            // Interrupted before any holder took it: it never happens.
            if (!entry.taken) queued = queued.filter((q) => q !== entry)
          })
        ))
      })
    return { probe, readState, updateState, forget: () => void (cached = undefined) }
  })
