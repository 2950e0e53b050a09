/**
 * One session directory as a `SessionHandle`:
 * `wire.jsonl`, `state.json`, `agents/<child>/{wire.jsonl,meta.json}`, `tasks/<runId>.json`,
 * `archive/<child>.wire.jsonl.gz`.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Clock, Effect, Exit, Schedule, Scope, Semaphore } from "effect"
import { SessionError } from "../SessionError.ts"
import type { ArchivedChild, ChildStore, SessionHandle, SessionOwner, SessionState } from "../SessionStore.ts"
import { archiveEntry, archivePathOf, listArchive } from "./archive.ts"
import { io, ioSync, isTempFile } from "./fs.ts"
import { ensureDir, ensureDirSync, listDir, treeBytes } from "./fsDirs.ts"
import { fileIdentitySync, readTextIfExists, readTextIfExistsSync } from "./fsReads.ts"
import { writeFileAtomic, writeFileAtomicGroup } from "./fsWrites.ts"
import { type FileTranscript, makeFileTranscript } from "./FileTranscript.ts"
import { isAlive, type LeaseOwner, readOwner, release, tryAcquire } from "./lease.ts"
import { checkId, encodeJson, notFound, nowIso, parseState, snapshot } from "./state.ts"
import { pollState } from "./watch.ts"

/** How often `watchState` looks at `state.json`. */
const WATCH_INTERVAL = "100 millis"

/** Reads and validates `<dir>/state.json`: `NotFound` if absent, `Corrupt` if unreadable. */
export const readStateFile = (dir: string, id: string): Effect.Effect<SessionState, SessionError> => {
  const path = join(dir, "state.json")
  return io("read", path, () => readTextIfExists(path)).pipe(
    Effect.flatMap((text) => text === undefined ? Effect.fail(notFound(id)) : parseState(text, id, path))
  )
}

/** Reads a JSON file that may be missing (`undefined`); unparsable content is `Corrupt`. */
const readJsonIfExists = (path: string): Effect.Effect<unknown, SessionError> =>
  io("read", path, () => readTextIfExists(path)).pipe(
    Effect.flatMap((text) => {
      if (text === undefined) return Effect.succeed(undefined)
      try {
        return Effect.succeed<unknown>(JSON.parse(text))
      } catch (cause) {
        return Effect.fail(new SessionError({ reason: "Corrupt", detail: `${path} is corrupt: ${String(cause)}` }))
      }
    })
  )

/** Strict: temp file and directory fsynced. Group: no fsync, one thread-pool call (see `writeFileAtomicGroup`). */
const writeJson = (path: string, value: unknown, strict: boolean): Effect.Effect<void, SessionError> =>
  strict
    ? io("write", path, () => writeFileAtomic(path, encodeJson(value), true))
    : io("write", path, () => writeFileAtomicGroup(path, encodeJson(value)))

/** A child's store, with its transcript's archive operations (for the handle). */
interface FileChildStore extends ChildStore {
  readonly transcript: FileTranscript
}

const makeChildStore = (dir: string, name: string, archivePath: string, scope: Scope.Scope, strict: boolean): Effect.Effect<FileChildStore, SessionError> =>
  Effect.gen(function*() {
    yield* strict ? io("create", dir, () => ensureDir(dir, true)) : ioSync("create", dir, () => ensureDirSync(dir))
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope, archivePath, strict)
    const metaPath = join(dir, "meta.json")
    return {
      name,
      transcript,
      location: dir,
      readMeta: readJsonIfExists(metaPath),
      writeMeta: (meta) => writeJson(metaPath, meta, strict)
    } satisfies FileChildStore
  })

/** A handle and how to let it go (see `makeHandleCache`'s `release`). */
export interface ReleasableHandle {
  readonly handle: SessionHandle
  /**
   * False while this process holds the session's lease; otherwise closes the files the
   * handle's transcripts keep open (a straggler's append then opens the file for its write).
   */
  readonly letGo: Effect.Effect<boolean>
}

/**
 * Builds the handle for a session directory. The files the handle's transcripts keep open are
 * closed by `letGo`, or when `storeScope` (the store's) closes. With `strict`, every metadata
 * write (state, meta, tasks, new directories) is fsynced on its own; without, only transcript
 * syncs are (see `SyncPolicy`).
 */
export const makeFileSessionHandle = (
  dir: string,
  id: string,
  storeScope: Scope.Scope,
  strict = true
): Effect.Effect<ReleasableHandle, SessionError> =>
  Effect.gen(function*() {
    // The handle's own: closing it drops the transcripts' finalizers from the store's scope too.
    const scope = yield* Scope.fork(storeScope)
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope, undefined, strict)
    const stateLock = yield* Semaphore.make(1)
    const statePath = join(dir, "state.json")
    const agentsDir = join(dir, "agents")
    const tasksDir = join(dir, "tasks")
    // One ChildStore per name, so every user of a child shares its transcript buffer.
    const children = new Map<string, FileChildStore>()

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

    const child = (name: string) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        const known = children.get(name)
        if (known !== undefined) return Effect.succeed(known)
        return makeChildStore(join(agentsDir, name), name, archivePathOf(dir, name), scope, strict).pipe(Effect.map((made) => {
          // Another fiber may have built the same child meanwhile: keep the first one.
          const first = children.get(name) ?? made
          children.set(name, first)
          return first
        }))
      })))

    const listChildren = io("list", agentsDir, () => listDir(agentsDir)).pipe(
      Effect.map((entries) => entries.filter((e) => e.isDirectory()).map((e) => e.name).sort())
    )

    const writeTask = (runId: string, record: unknown) =>
      checkId("run id", runId).pipe(
        Effect.andThen(io("create", tasksDir, () => ensureDir(tasksDir, strict))),
        Effect.andThen(writeJson(join(tasksDir, `${runId}.json`), record, strict))
      )

    // Most sessions never run a background child: no tasks directory, told without the pool.
    const readTasks = ioSync("list", tasksDir, () => existsSync(tasksDir)).pipe(
      Effect.flatMap((present) => present ? io("list", tasksDir, () => listDir(tasksDir)) : Effect.succeed([])),
      Effect.map((entries) =>
        entries.filter((e) => e.isFile() && e.name.endsWith(".json") && !isTempFile(e.name)).map((e) => e.name).sort()
      ),
      Effect.flatMap((names) =>
        Effect.forEach(names, (name) =>
          readJsonIfExists(join(tasksDir, name)).pipe(
            // One unreadable record must not hide the others.
            Effect.catch((error) => Effect.logWarning(`skipped task record: ${error.detail}`).pipe(Effect.as(undefined)))
          ), { concurrency: 16 })
      ),
      Effect.map((records) => records.filter((r) => r !== undefined))
    )

    const lockPath = join(dir, "owner.lock")
    const leaseLock = yield* Semaphore.make(1)
    // This process's hold on the lease: shared by every user of the handle, counted.
    let held: { owner: LeaseOwner; users: number } | undefined
    const takeLease = leaseLock.withPermit(Effect.gen(function*() {
      if (held !== undefined) {
        held.users++
        return held.owner
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const outcome = yield* ioSync("lock", lockPath, () => tryAcquire(lockPath, now)).pipe(
        Effect.repeat({ schedule: Schedule.spaced("50 millis"), while: (o) => o._tag === "Contended", times: 100 })
      )
      if (outcome._tag === "Owned") {
        return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run by another process (pid ${outcome.owner.pid} on ${outcome.owner.host}, since ${outcome.owner.acquiredAt})` })
      }
      if (outcome._tag === "Contended") return yield* new SessionError({ reason: "Io", detail: `${lockPath}: could not take the session's lease (another process keeps taking it over)` })
      held = { owner: outcome.owner, users: 1 }
      return outcome.owner
    }))
    const giveLease = leaseLock.withPermit(Effect.suspend(() => {
      if (held === undefined || --held.users > 0) return Effect.void
      const owner = held.owner
      held = undefined
      return ioSync("unlock", lockPath, () => release(lockPath, owner)).pipe(Effect.ignore({ log: "Warn", message: `could not release ${lockPath}` }))
    }))
    const leaseOwner = (o: LeaseOwner): SessionOwner => ({ pid: o.pid, host: o.host, acquiredAt: o.acquiredAt })
    const acquire = Effect.acquireRelease(takeLease, () => giveLease).pipe(Effect.map(leaseOwner))
    /** Runs `effect` holding the lease (shared when this process holds it already). */
    const underLease = <A>(effect: Effect.Effect<A, SessionError>) => Effect.scoped(acquire.pipe(Effect.andThen(effect)))

    const archived = (name: string) =>
      io("read", archivePathOf(dir, name), () => archiveEntry(archivePathOf(dir, name))).pipe(
        Effect.map((e): ArchivedChild | undefined => e === undefined ? undefined : { name, bytes: e.bytes, archivedBytes: e.archivedBytes, archivedAt: e.archivedAt.toISOString() })
      )

    const archiveChild: SessionHandle["archiveChild"] = (name, options) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        // A child that never wrote anything has nothing to archive (and gets no directory for it).
        if (!children.has(name) && !existsSync(join(agentsDir, name, "wire.jsonl"))) return Effect.succeed(undefined)
        const work = child(name).pipe(
          Effect.flatMap((c) => (c as FileChildStore).transcript.archive(options?.dryRun === true)),
          Effect.flatMap((done) =>
            done === undefined ? Effect.succeed(undefined) : options?.dryRun === true
              ? Effect.map(nowIso, (at): ArchivedChild => ({ name, ...done, archivedAt: at }))
              : Effect.map(archived(name), (entry) => entry === undefined ? undefined : { ...entry, bytes: done.bytes })
          )
        )
        return options?.dryRun === true ? work : underLease(work)
      })))

    const handle = {
      id,
      location: dir,
      transcript,
      readState,
      updateState,
      watchState: pollState(probe, readState, WATCH_INTERVAL),
      acquire,
      owner: Effect.suspend(() =>
        held !== undefined
          ? Effect.succeed(leaseOwner(held.owner))
          : ioSync("read", lockPath, () => readOwner(lockPath)).pipe(Effect.map((o) => (o !== undefined && o.token !== "unreadable" && isAlive(o) ? leaseOwner(o) : undefined)))
      ),
      child,
      children: listChildren,
      writeTask,
      readTasks,
      readTask: (runId) => checkId("run id", runId).pipe(Effect.andThen(readJsonIfExists(join(tasksDir, `${runId}.json`)))),
      archiveChild,
      restoreChild: (name) =>
        checkId("child name", name).pipe(Effect.andThen(underLease(child(name).pipe(Effect.flatMap((c) => (c as FileChildStore).transcript.restore))))),
      archivedChildren: io("list", join(dir, "archive"), () => listArchive(dir)).pipe(
        Effect.flatMap((names) => Effect.forEach(names, archived, { concurrency: 16 })),
        Effect.map((entries) => entries.filter((e) => e !== undefined))
      ),
      footprint: io("measure", dir, () => treeBytes(dir))
    } satisfies SessionHandle
    const letGo = leaseLock.withPermit(Effect.suspend(() => {
      if (held !== undefined) return Effect.succeed(false)
      cached = undefined
      children.clear()
      return Scope.close(scope, Exit.void).pipe(Effect.as(true))
    }))
    return { handle, letGo }
  })
