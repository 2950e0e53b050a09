/**
 * One session directory as a `SessionHandle`:
 * `wire.jsonl`, `state.json`, `agents/<child>/{wire.jsonl,meta.json}`, `tasks/<runId>.json`.
 */
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Effect, Schedule, type Scope, Semaphore } from "effect"
import { SessionError } from "../SessionError.ts"
import type { ChildStore, SessionHandle, SessionOwner, SessionState } from "../SessionStore.ts"
import { ensureDir, io, isTempFile, listDir, readTextIfExists, writeFileAtomic } from "./fs.ts"
import { makeFileTranscript } from "./FileTranscript.ts"
import { isAlive, type LeaseOwner, readOwner, release, tryAcquire } from "./lease.ts"
import { checkId, encodeJson, notFound, nowIso, parseState } from "./state.ts"
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

const writeJson = (path: string, value: unknown): Effect.Effect<void, SessionError> =>
  io("write", path, () => writeFileAtomic(path, encodeJson(value)))

const makeChildStore = (dir: string, name: string, scope: Scope.Scope): Effect.Effect<ChildStore, SessionError> =>
  Effect.gen(function*() {
    yield* io("create", dir, () => ensureDir(dir))
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope)
    const metaPath = join(dir, "meta.json")
    return {
      name,
      transcript,
      location: dir,
      readMeta: readJsonIfExists(metaPath),
      writeMeta: (meta) => writeJson(metaPath, meta)
    } satisfies ChildStore
  })

/**
 * Builds the handle for a session directory. `scope` is the store's: it closes the files
 * the handle's transcripts keep open.
 */
export const makeFileSessionHandle = (
  dir: string,
  id: string,
  scope: Scope.Scope
): Effect.Effect<SessionHandle, SessionError> =>
  Effect.gen(function*() {
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope)
    const stateLock = yield* Semaphore.make(1)
    const statePath = join(dir, "state.json")
    const agentsDir = join(dir, "agents")
    const tasksDir = join(dir, "tasks")
    // One ChildStore per name, so every user of a child shares its transcript buffer.
    const children = new Map<string, ChildStore>()

    // Other processes update the same state (a `dsh subagents send` appends a request while the
    // owner removes the one it took): the read-modify-write holds `state.lock` across processes,
    // or one of two concurrent updates would be lost.
    const stateLockPath = join(dir, "state.lock")
    const takeStateLock = Effect.gen(function*() {
      const outcome = yield* io("lock", stateLockPath, () => tryAcquire(stateLockPath, new Date())).pipe(
        Effect.repeat({ schedule: Schedule.spaced("5 millis"), while: (o) => o._tag !== "Acquired", times: 2000 })
      )
      if (outcome._tag !== "Acquired") return yield* new SessionError({ reason: "Io", detail: `${stateLockPath}: held by pid ${outcome._tag === "Owned" ? outcome.owner.pid : "?"} for too long` })
      return outcome.owner
    })
    const updateState = (f: (state: SessionState) => SessionState) =>
      stateLock.withPermit(Effect.acquireUseRelease(
        takeStateLock,
        () =>
          Effect.gen(function*() {
            const current = yield* readStateFile(dir, id)
            const next: SessionState = { ...f(current), updatedAt: yield* nowIso }
            yield* writeJson(statePath, next)
            return next
          }),
        (owner) => io("unlock", stateLockPath, () => release(stateLockPath, owner)).pipe(Effect.ignore({ log: "Warn", message: `could not release ${stateLockPath}` }))
      ))

    const child = (name: string) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        const known = children.get(name)
        if (known !== undefined) return Effect.succeed(known)
        return makeChildStore(join(agentsDir, name), name, scope).pipe(Effect.map((made) => {
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
        Effect.andThen(io("create", tasksDir, () => ensureDir(tasksDir))),
        Effect.andThen(writeJson(join(tasksDir, `${runId}.json`), record))
      )

    const readTasks = io("list", tasksDir, () => listDir(tasksDir)).pipe(
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
      const outcome = yield* io("lock", lockPath, () => tryAcquire(lockPath, now)).pipe(
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
      return io("unlock", lockPath, () => release(lockPath, owner)).pipe(Effect.ignore({ log: "Warn", message: `could not release ${lockPath}` }))
    }))
    const leaseOwner = (o: LeaseOwner): SessionOwner => ({ pid: o.pid, host: o.host, acquiredAt: o.acquiredAt })

    // The file's identity after each atomic rename: inode, size and modification time.
    const probe = io("stat", statePath, () => stat(statePath, { bigint: true })).pipe(
      Effect.map((s) => `${s.ino}:${s.size}:${s.mtimeNs}`)
    )

    return {
      id,
      location: dir,
      transcript,
      readState: readStateFile(dir, id),
      updateState,
      watchState: pollState(probe, readStateFile(dir, id), WATCH_INTERVAL),
      acquire: Effect.acquireRelease(takeLease, () => giveLease).pipe(Effect.map(leaseOwner)),
      owner: Effect.suspend(() =>
        held !== undefined
          ? Effect.succeed(leaseOwner(held.owner))
          : io("read", lockPath, () => readOwner(lockPath)).pipe(Effect.map((o) => (o !== undefined && o.token !== "unreadable" && isAlive(o) ? leaseOwner(o) : undefined)))
      ),
      child,
      children: listChildren,
      writeTask,
      readTasks,
      readTask: (runId) => checkId("run id", runId).pipe(Effect.andThen(readJsonIfExists(join(tasksDir, `${runId}.json`))))
    } satisfies SessionHandle
  })
