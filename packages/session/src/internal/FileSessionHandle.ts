/**
 * One session directory as a `SessionHandle`:
 * `wire.jsonl`, `state.json`, `agents/<child>/{wire.jsonl,meta.json}`, `tasks/<runId>.json`,
 * `archive/<child>.wire.jsonl.gz`.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { SessionError } from "../SessionError.ts"
import type { ArchivedChild, ChildStore, SessionHandle } from "../SessionStore.ts"
import { archiveEntry, archivePathOf, listArchive } from "./archive.ts"
import { io, ioSync, isTempFile } from "./fs.ts"
import { ensureDir, ensureDirSync, listDir, treeBytes } from "./fsDirs.ts"
import { readTextIfExists } from "./fsReads.ts"
import { type FileTranscript, makeFileTranscript } from "./FileTranscript.ts"
import { makeHandleLease } from "./handleLease.ts"
import type { DescriptorBudget } from "./descriptors.ts"
import { checkId, nowIso } from "./state.ts"
import { makeStateFile, type StateSeed, writeJson } from "./stateFile.ts"
export { readStateFile, readStateSeed, writtenSeed } from "./stateFile.ts"
import { pollState } from "./watch.ts"

/** How often `watchState` looks at `state.json`. */
const WATCH_INTERVAL = "100 millis"

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

/** A child's store, with its transcript's archive operations (for the handle). */
interface FileChildStore extends ChildStore {
  readonly transcript: FileTranscript
}

/** What the store's handles share: its scope, its write policy and its budget of open transcripts. */
export interface HandleFiles {
  readonly scope: Scope.Scope
  /** Every metadata write fsynced on its own (see `SyncPolicy`). */
  readonly strict: boolean
  readonly descriptors: DescriptorBudget
}

const makeChildStore = (dir: string, name: string, archivePath: string, scope: Scope.Scope, { descriptors, strict }: HandleFiles): Effect.Effect<FileChildStore, SessionError> =>
  Effect.gen(function*() {
    // A directory made here holds nothing yet: no transcript to scan, no meta.json to replace.
    const fresh = yield* strict ? io("create", dir, () => ensureDir(dir, true)) : ioSync("create", dir, () => ensureDirSync(dir))
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope, descriptors, archivePath, strict, fresh)
    const metaPath = join(dir, "meta.json")
    let metaWritten = !fresh
    return {
      name,
      transcript,
      location: dir,
      readMeta: readJsonIfExists(metaPath),
      writeMeta: (meta) =>
        Effect.suspend(() => {
          const first = !metaWritten
          metaWritten = true
          return writeJson(metaPath, meta, strict, first)
        })
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
 * closed by `letGo`, or when the store's scope closes (and by the store's budget while idle).
 * With `strict`, every metadata write (state, meta, tasks, new directories) is fsynced on its
 * own; without, only transcript syncs are (see `SyncPolicy`). With `fresh`, the directory was
 * just created for a new session; `seed` is its state as the caller just read or wrote it.
 */
export const makeFileSessionHandle = (
  dir: string,
  id: string,
  files: HandleFiles,
  fresh = false,
  seed?: StateSeed
): Effect.Effect<ReleasableHandle, SessionError> =>
  Effect.gen(function*() {
    // The handle's own: closing it drops the transcripts' finalizers from the store's scope too.
    const { descriptors, strict } = files
    const scope = yield* Scope.fork(files.scope)
    const transcript = yield* makeFileTranscript(join(dir, "wire.jsonl"), scope, descriptors, undefined, strict, fresh)
    const agentsDir = join(dir, "agents")
    const tasksDir = join(dir, "tasks")
    // One ChildStore per name, so every user of a child shares its transcript buffer.
    const children = new Map<string, FileChildStore>()

    const state = yield* makeStateFile(dir, id, strict, seed)

    const child = (name: string) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        const known = children.get(name)
        if (known !== undefined) return Effect.succeed(known)
        return makeChildStore(join(agentsDir, name), name, archivePathOf(dir, name), scope, files).pipe(Effect.map((made) => {
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

    // Giving up the lease folds the state's change log: a session at rest is one state.json.
    const lease = yield* makeHandleLease(dir, id, state.fold)
    const { acquire, underLease } = lease

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
      readState: state.readState,
      updateState: state.updateState,
      watchState: pollState(state.probe, state.readState, WATCH_INTERVAL),
      acquire,
      owner: lease.owner,
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
    const letGo = lease.unlessHeld(Effect.suspend(() => {
      state.forget()
      children.clear()
      return Scope.close(scope, Exit.void)
    }))
    return { handle, letGo }
  })
