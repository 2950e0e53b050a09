/**
 * The default `SessionStore`: one directory per session under `<home>/sessions/`.
 *
 * ```text
 * <home>/sessions/<id>/
 *   state.json                    atomically replaced (temp file, fsync, rename, fsync dir)
 *   wire.jsonl                    the main agent's events, append-only, one record per line
 *   agents/<child>/wire.jsonl     each child's events
 *   agents/<child>/meta.json      each child's metadata
 *   tasks/<runId>.json            background-run records
 *   archive/<child>.wire.jsonl.gz archived children's transcripts (gzip)
 *   owner.lock                    the ownership lease of the process that runs the session
 * ```
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { Ids } from "@dsh/core"
import { Clock, Effect, Layer, type Scope } from "effect"
import { defaultLimit, makeDescriptorBudget } from "./internal/descriptors.ts"
import { type HandleFiles, makeFileSessionHandle, readStateFile, readStateSeed, type ReleasableHandle, writtenSeed } from "./internal/FileSessionHandle.ts"
import { checkId, decodeState, encodeJson, initialState, latestOf, newestFirst, nowIso } from "./internal/state.ts"
import { makeHandleCache } from "./internal/handles.ts"
import { io, ioSync } from "./internal/fs.ts"
import { ensureDir, ensureDirSync, holdsSessionData, listDir, makeDirIfAbsent, makeDirIfAbsentSync, syncDir } from "./internal/fsDirs.ts"
import { writeFileAtomic, writeFileAtomicFreshSync, writeFileExclusive } from "./internal/fsWrites.ts"
import { SessionError } from "./SessionError.ts"
import { type SessionHandle, SessionStore, type SessionStoreShape, type SessionState } from "./SessionStore.ts"

/** @since 0.1.0 */
export interface Options {
  /** `$DSH_HOME`; sessions live in `<home>/sessions/<id>/`. */
  readonly home: string
  /**
   * How writes reach the disk. `"group"` (the default): transcript appends are fdatasynced at
   * turn boundaries and before an outcome is announced, and that one sync is the commit of the
   * turn — state, meta and task files and new directories are replaced atomically (safe against
   * `kill -9`) but not fsynced each, since a journaling filesystem (ext4, xfs, btrfs) commits every
   * earlier rename and create with the next transcript sync. `"strict"`: every such write is also
   * fsynced on its own, file and directory (POSIX's guarantee, about ten fsyncs more a delegation).
   *
   * @since 0.2.0
   */
  readonly sync?: "group" | "strict" | undefined
  /**
   * How many transcripts the store keeps open between appends (default: half the process's
   * open-file limit). Past it, the least recently used idle one is closed and opened again on
   * its next append, so a session with more children than descriptors loses nothing.
   *
   * @since 0.3.0
   */
  readonly maxOpenTranscripts?: number | undefined
}

/** What the store's operations share, built once by `make`; `create`, `recover` and `remove` are made from it. */
interface StoreContext {
  readonly files: HandleFiles
  readonly sessionsDir: string
  readonly dirOf: (id: string) => string
  readonly strict: boolean
  readonly handles: ReturnType<typeof makeHandleCache>
  readonly remember: (made: ReleasableHandle) => Effect.Effect<SessionHandle>
  readonly readState: (id: string) => Effect.Effect<SessionState, SessionError>
}

const makeCreate = ({ dirOf, files, remember, sessionsDir, strict }: StoreContext): SessionStoreShape["create"] => (init) =>
  Effect.gen(function*() {
    const id = init.id ?? Ids.makeId(new Date(yield* Clock.currentTimeMillis))
    yield* checkId("session id", id)
    const dir = dirOf(id)
    // Group: synchronous calls, no thread-pool round trips (see `ioSync`).
    yield* strict ? io("create", sessionsDir, () => ensureDir(sessionsDir, true)) : ioSync("create", sessionsDir, () => ensureDirSync(sessionsDir))
    const made = yield* strict ? io("create", dir, () => makeDirIfAbsent(dir)) : ioSync("create", dir, () => makeDirIfAbsentSync(dir))
    if (!made) return yield* new SessionError({ reason: "Exists", detail: `session "${id}" already exists` })
    const state = initialState(id, init, yield* nowIso)
    const text = encodeJson(state)
    const statePath = join(dir, "state.json")
    // Strict: the state file and the new directory's entry are flushed at once (two concurrent
    // flushes cost about one), both on disk before `create` returns. Group: the first
    // transcript sync of the session commits them.
    yield* strict
      ? Effect.all([
        io("write", statePath, () => writeFileAtomic(statePath, text)),
        io("sync", sessionsDir, () => syncDir(sessionsDir))
      ], { concurrency: 2, discard: true })
      : ioSync("write", statePath, () => writeFileAtomicFreshSync(statePath, text))
    return yield* remember(yield* makeFileSessionHandle(dir, id, files, true, yield* writtenSeed(dir, state, text.length)))
  })

const makeRecover = (
  { dirOf, files, handles, readState, remember, strict }: StoreContext,
  open: SessionStoreShape["open"]
): NonNullable<SessionStoreShape["recover"]> => (id, rebuild) =>
  Effect.gen(function*() {
    yield* checkId("session id", id)
    const missing = yield* readState(id).pipe(
      Effect.as(false),
      Effect.catchIf((e) => e.reason === "StateMissing", () => Effect.succeed(true))
    )
    if (!missing) return yield* open(id)
    const dir = dirOf(id)
    const statePath = join(dir, "state.json")
    const made = handles.get(id) === undefined ? yield* makeFileSessionHandle(dir, id, files) : undefined
    const handle = handles.get(id) ?? made!.handle
    // A live owner is still writing the session: a state rebuilt under it would race its updates.
    const owner = yield* handle.owner
    if (owner !== undefined) {
      return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run (pid ${owner.pid} on ${owner.host}, since ${owner.acquiredAt}); its state was not rebuilt` })
    }
    // What `rebuild` makes is checked like any state read back, so a bad rebuild is not written.
    const state = yield* Effect.flatMap(rebuild(handle), (s) => decodeState(s, id, "the rebuilt state"))
    yield* io("write", statePath, () => writeFileExclusive(statePath, encodeJson(state)))
    yield* readStateFile(dir, id)
    return made === undefined ? handles.remember(handle) : yield* remember(made)
  })

const makeRemove = ({ dirOf, handles, sessionsDir }: StoreContext, open: SessionStoreShape["open"]): SessionStoreShape["remove"] => (id) =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* open(id)
    const owner = yield* handle.owner
    if (owner !== undefined) {
      return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run (pid ${owner.pid} on ${owner.host}, since ${owner.acquiredAt}); it was not removed` })
    }
    // Held while the directory goes: no process can start running it meanwhile.
    yield* handle.acquire
    const dir = dirOf(id)
    // Renamed first (atomic: gone from `list` at once; a dot name is never a session), then deleted.
    const trash = join(sessionsDir, `.removed-${id}-${randomBytes(4).toString("hex")}`)
    yield* io("remove", dir, () => rename(dir, trash))
    handles.forget(id)
    yield* io("sync", sessionsDir, () => syncDir(sessionsDir))
    yield* io("remove", trash, () => rm(trash, { recursive: true, force: true }))
  }))

/**
 * Builds a file store. Handles are cached for the store's lifetime: `open` of the same id
 * returns the same object, so every part of a process shares one append buffer per
 * transcript. Each transcript written to keeps its file open for appends (up to
 * `maxOpenTranscripts` at once, least recently used closed first) until the scope
 * closes. Two stores (or processes) on one home do not coordinate their writes.
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<SessionStoreShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const sessionsDir = join(options.home, "sessions")
    const handles = makeHandleCache()
    const dirOf = (id: string) => join(sessionsDir, id)
    const strict = options.sync === "strict"
    // The first handle made for an id wins; a racing second one lets its files go at once.
    const remember = (made: ReleasableHandle) => {
      const kept = handles.remember(made.handle, made.letGo)
      return kept === made.handle ? Effect.succeed(kept) : Effect.as(made.letGo, kept)
    }

    /**
     * `state.json`, or why not: a missing one beside a transcript (children, tasks) is
     * `StateMissing`, not `NotFound` — the session is there, only its state was lost.
     */
    const readSeed = (id: string) =>
      readStateSeed(dirOf(id), id).pipe(Effect.catchIf(
        (e) => e.reason === "NotFound",
        (e) =>
          io("list", dirOf(id), () => holdsSessionData(dirOf(id))).pipe(Effect.flatMap((held) =>
            held
              ? Effect.fail(new SessionError({ reason: "StateMissing", detail: `session "${id}": ${join(dirOf(id), "state.json")} is missing (its transcript is still there)` }))
              : Effect.fail(e)
          ))
      ))
    const readState = (id: string) => Effect.map(readSeed(id), (seed) => seed.view.state)

    const limit = options.maxOpenTranscripts
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
      return yield* Effect.die(new RangeError(`FileSessionStore: maxOpenTranscripts must be a whole number of at least 1, not ${limit}`))
    }
    const descriptors = makeDescriptorBudget(() => limit ?? defaultLimit())
    const files: HandleFiles = { scope, strict, descriptors }
    const ctx: StoreContext = { files, sessionsDir, dirOf, strict, handles, remember, readState }
    const create = makeCreate(ctx)

    const open: SessionStoreShape["open"] = (id) =>
      checkId("session id", id).pipe(Effect.andThen(Effect.suspend(() => {
        const known = handles.get(id)
        if (known !== undefined) return Effect.succeed(known)
        // What the existence check read is the new handle's first state (not read twice).
        return readSeed(id).pipe(
          Effect.flatMap((seed) => makeFileSessionHandle(dirOf(id), id, files, false, seed)),
          Effect.flatMap(remember)
        )
      })))

    const list: SessionStoreShape["list"] = io("list", sessionsDir, () => listDir(sessionsDir)).pipe(
      Effect.flatMap((entries) =>
        Effect.forEach(
          entries.filter((e) => e.isDirectory() && Ids.isSafeId(e.name)),
          (e) =>
            readStateFile(dirOf(e.name), e.name).pipe(
              // A directory without a valid state.json is not a session (yet); skip it.
              Effect.catch(() => Effect.succeed<SessionState | undefined>(undefined))
            ),
          { concurrency: 16 }
        )
      ),
      Effect.map((states) => newestFirst(states.filter((s) => s !== undefined)))
    )

    const unreadable: SessionStoreShape["unreadable"] = io("list", sessionsDir, () => listDir(sessionsDir)).pipe(
      Effect.flatMap((entries) =>
        Effect.forEach(entries.filter((e) => e.isDirectory() && Ids.isSafeId(e.name)), (e) =>
          readState(e.name).pipe(
            Effect.as(undefined),
            // An empty directory without state.json is a session being created; anything else is reported.
            Effect.catch((error) => Effect.succeed(error.reason === "NotFound" ? undefined : { id: e.name, error: error.message }))
          ), { concurrency: 16 })
      ),
      Effect.map((found) => found.filter((x) => x !== undefined).sort((a, b) => b.id.localeCompare(a.id)))
    )

    const latest: SessionStoreShape["latest"] = (filter) =>
      list.pipe(Effect.flatMap((states) => {
        const found = latestOf(states, filter)
        return found === undefined ? Effect.succeed(undefined) : open(found.id)
      }))

    const recover = makeRecover(ctx, open)
    const remove = makeRemove(ctx, open)

    return SessionStore.of({ create, open, list, unreadable, recover, latest, remove, release: handles.release })
  })

/**
 * The file store as the `SessionStore` service.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<SessionStore> => Layer.effect(SessionStore, make(options))
