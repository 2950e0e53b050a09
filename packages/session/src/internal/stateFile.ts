/**
 * A session's state as the handle uses it: `state.json` plus `state.changes.jsonl`, the log of
 * changes since `state.json` was last written. An update appends one patch line (what changed:
 * one child's record, a status) instead of rewriting the whole state: with hundreds of children
 * the state is hundreds of KiB, and each rewrite was an encode of all of it and a rename over
 * the old file (0.3–0.4 ms on ext4 by itself). The log is folded into `state.json` when it
 * outgrows it, when the session's run ends (its status becomes completed, failed or cancelled)
 * and when its lease is given up, so a session at rest is one file.
 * Updates are group-committed under `state.lock` (shared with other processes); reads take no
 * lock, are cached under the files' identities and read only what was appended since.
 */
import { join } from "node:path"
import { Effect, Exit, Schedule } from "effect"
import { SessionError } from "../SessionError.ts"
import type { SessionState } from "../SessionStore.ts"
import { io, ioSync } from "./fs.ts"
import { appendLogSync, logStatSync, readLogSync, removeLogSync } from "./fsLog.ts"
import { fileIdentitySync, readTextIfExistsSync } from "./fsReads.ts"
import { writeFileAtomic, writeFileAtomicFreshSync, writeFileAtomicGroup } from "./fsWrites.ts"
import { type HeldLock, release, tryAcquire } from "./lease.ts"
import { decodeState, encodeJson, notFound, nowIso, parseState, snapshot } from "./state.ts"
import { groupCommit } from "./groupCommit.ts"
import { makeRounds } from "./rounds.ts"
import { applyStatePatches, decodeStatePatch, diffState, type StatePatch } from "./statePatch.ts"

/** The change log's name beside `state.json`. */
export const STATE_LOG = "state.changes.jsonl"

/** Statuses of a session whose run is over: the update that sets one folds the log. */
const SETTLED: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

/** The log is folded into `state.json` once it is larger than this and than `state.json`. */
const FOLD_BYTES = 64 * 1024

/**
 * Strict: temp file and directory fsynced. Group: no fsync, one thread-pool call (see
 * `writeFileAtomicGroup`), none with `fresh` (the file cannot exist yet).
 */
export const writeJson = (path: string, value: unknown, strict: boolean, fresh = false): Effect.Effect<void, SessionError> =>
  writeText(path, encodeJson(value), strict, fresh)

const writeText = (path: string, text: string, strict: boolean, fresh = false): Effect.Effect<void, SessionError> =>
  strict
    ? io("write", path, () => writeFileAtomic(path, text, true))
    : fresh
    ? ioSync("write", path, () => writeFileAtomicFreshSync(path, text))
    : io("write", path, () => writeFileAtomicGroup(path, text))

/** The patches in the complete lines of `bytes`, how many bytes they span, and how many lines were not patches. */
const parseLines = (bytes: Buffer): { readonly patches: Array<StatePatch>; readonly end: number; readonly bad: number } => {
  const last = bytes.lastIndexOf(10)
  const patches: Array<StatePatch> = []
  let bad = 0
  if (last < 0) return { patches, end: 0, bad }
  for (const line of bytes.subarray(0, last + 1).toString("utf8").split("\n")) {
    if (line.length === 0) continue
    let patch: StatePatch | undefined
    try {
      patch = decodeStatePatch(JSON.parse(line))
    } catch {
      patch = undefined
    }
    if (patch === undefined) bad++
    else patches.push(patch)
  }
  return { patches, end: last + 1, bad }
}

/** What was read of the log: its inode, the bytes seen, and where its last complete line ends. */
interface LogSeen {
  readonly ino: bigint
  readonly seen: number
  readonly end: number
}

/** The state as last read or written here, under the identities of both files then. */
interface View {
  readonly stateKey: string
  readonly stateBytes: number
  readonly log: LogSeen | undefined
  readonly state: SessionState
}

/** The identity `state.json` has now, what a cached state is kept under (`undefined`: none). */
const stateKeyOf = (statePath: string): Effect.Effect<string | undefined> =>
  ioSync("stat", statePath, () => fileIdentitySync(statePath)).pipe(Effect.orElseSucceed(() => undefined))

/** Reads of `state.json` and the log that a fold of another process kept overlapping, before one is taken as it is. */
const MAX_REREADS = 8

/**
 * `state.json` with the log applied, read without the cache. The log is read between two looks
 * at `state.json`'s identity, and read again when a fold (another process's: a new `state.json`,
 * then the log removed) came in between: the old log replayed over the new state would undo what
 * the fold's own change set. A fold that had written `state.json` before the first look but not
 * yet removed the log is read as the new state with patches it already holds (the fold appends
 * its change to the log first), which give the same state again.
 */
const readFresh = (dir: string, id: string) =>
  Effect.gen(function*() {
    const statePath = join(dir, "state.json")
    const logPath = join(dir, STATE_LOG)
    let key = yield* stateKeyOf(statePath)
    let log = yield* ioSync("read", logPath, () => readLogSync(logPath, 0))
    let text = yield* ioSync("read", statePath, () => readTextIfExistsSync(statePath))
    for (let reread = 0; reread < MAX_REREADS; reread++) {
      const after = yield* stateKeyOf(statePath)
      if (after === key) break
      key = after
      log = yield* ioSync("read", logPath, () => readLogSync(logPath, 0))
      text = yield* ioSync("read", statePath, () => readTextIfExistsSync(statePath))
    }
    if (text === undefined) return yield* notFound(id)
    const base = snapshot(yield* parseState(text, id, statePath))
    if (log === undefined) return { key, view: { stateBytes: text.length, log: undefined, state: base } }
    const { bad, end, patches } = parseLines(log.bytes)
    if (bad > 0) yield* Effect.logWarning(`${logPath}: skipped ${bad} line(s) that are not state changes (a torn write?)`)
    const state = patches.length === 0 ? base : yield* applyChecked(base, patches, id, logPath)
    return { key, view: { stateBytes: text.length, log: { ino: log.ino, seen: log.size, end }, state } }
  })

/** Patches read from the log applied, the result validated (the log is outside data). */
const applyChecked = (state: SessionState, patches: ReadonlyArray<StatePatch>, id: string, location: string) => {
  const next = applyStatePatches(state, patches)
  return Effect.as(decodeState(next, id, location), next)
}

/** A session's state read once (`list`, `open`): `NotFound` if absent, `Corrupt` if unreadable. */
export const readStateFile = (dir: string, id: string): Effect.Effect<SessionState, SessionError> =>
  Effect.map(readFresh(dir, id), (r) => r.view.state)

/**
 * What a state file starts from instead of a read: the state as just read (`open` checks that the
 * session exists) or just written (`create`), under the identity of `state.json` then.
 */
export interface StateSeed {
  readonly key: string | undefined
  readonly view: Omit<View, "stateKey">
}

/** `readStateFile`, keeping what was read as a seed for the handle's cache. */
export const readStateSeed = (dir: string, id: string): Effect.Effect<StateSeed, SessionError> => readFresh(dir, id)

/** The seed of a state just written whole to `dir`'s `state.json` (a new session's). */
export const writtenSeed = (dir: string, state: SessionState, bytes: number): Effect.Effect<StateSeed> =>
  Effect.map(
    stateKeyOf(join(dir, "state.json")),
    (key) => ({ key, view: { stateBytes: bytes, log: undefined, state: snapshot(state) } })
  )

/** The state file of one session: what `makeStateFile` gives the handle. */
export interface StateFile {
  /** Both files' identities now: what `watchState` polls. */
  readonly probe: Effect.Effect<string, SessionError>
  readonly readState: Effect.Effect<SessionState, SessionError>
  readonly updateState: (f: (state: SessionState) => SessionState) => Effect.Effect<SessionState, SessionError>
  /** Folds the log into `state.json` (when the lease is given up): a session at rest is one file. */
  readonly fold: Effect.Effect<void, SessionError>
  /** Drops the cached state (when the handle is let go). */
  readonly forget: () => void
}

/**
 * The state file of the session in `dir`; with `strict`, every write is fsynced on its own. A
 * `seed` is the state as the caller just read or wrote it: the first read checks the files'
 * identities instead of reading them again.
 */
export const makeStateFile = (dir: string, id: string, strict: boolean, seed?: StateSeed): Effect.Effect<StateFile> =>
  Effect.gen(function*() {
    // Group commits and folds, one at a time.
    const stateLock = makeRounds()
    const statePath = join(dir, "state.json")
    const logPath = join(dir, STATE_LOG)
    // Other processes update the same state (a `dsh subagents send` appends a request while the
    // owner removes the one it took): the read-modify-write holds `state.lock` across processes,
    // or one of two concurrent updates would be lost, and a fold would drop a line appended
    // between its read and its removal of the log.
    const stateLockPath = join(dir, "state.lock")
    const takeStateLock = Effect.gen(function*() {
      const outcome = yield* ioSync("lock", stateLockPath, () => tryAcquire(stateLockPath, new Date())).pipe(
        Effect.repeat({ schedule: Schedule.spaced("5 millis"), while: (o) => o._tag !== "Acquired", times: 2000 })
      )
      if (outcome._tag !== "Acquired") return yield* new SessionError({ reason: "Io", detail: `${stateLockPath}: held by pid ${outcome._tag === "Owned" ? outcome.owner.pid : "?"} for too long` })
      return outcome.held
    })
    const unlock = (held: HeldLock) =>
      ioSync("unlock", stateLockPath, () => release(stateLockPath, held)).pipe(Effect.ignore({ log: "Warn", message: `could not release ${stateLockPath}` }))
    const stateKey = stateKeyOf(statePath)
    const logStat = ioSync("stat", logPath, () => logStatSync(logPath))
    const probe = Effect.gen(function*() {
      const log = yield* logStat
      return `${(yield* stateKey) ?? "-"}|${log === undefined ? "-" : `${log.ino}:${log.size}`}`
    })

    let cached: View | undefined = seed?.key === undefined ? undefined : { ...seed.view, stateKey: seed.key }
    const remember = (key: string | undefined, view: Omit<View, "stateKey">) => {
      cached = key === undefined ? undefined : { ...view, stateKey: key }
      return view.state
    }
    /** The cached state brought up to date by the lines appended since, if the files are still those it was read from. */
    const fromCache = Effect.gen(function*() {
      const c = cached
      if (c === undefined) return undefined
      const log = yield* logStat
      if ((yield* stateKey) !== c.stateKey) return undefined
      if (log === undefined) return c.log === undefined ? c.state : undefined
      if (c.log !== undefined && log.ino !== c.log.ino) return undefined
      const from = c.log?.end ?? 0
      if (log.size === (c.log?.seen ?? 0)) return c.state
      const tail = yield* ioSync("read", logPath, () => readLogSync(logPath, from))
      if (tail === undefined || tail.ino !== log.ino) return undefined
      const { bad, end, patches } = parseLines(tail.bytes)
      if (bad > 0) yield* Effect.logWarning(`${logPath}: skipped ${bad} line(s) that are not state changes (a torn write?)`)
      const state = patches.length === 0 ? c.state : yield* applyChecked(c.state, patches, id, logPath)
      cached = { ...c, log: { ino: tail.ino, seen: tail.size, end: from + end }, state }
      return state
    })
    const readState: Effect.Effect<SessionState, SessionError> = Effect.gen(function*() {
      const hit = yield* fromCache
      if (hit !== undefined) return hit
      const { key, view } = yield* readFresh(dir, id)
      return remember(key, view)
    })

    /** Writes `state` as the whole `state.json` and removes the log (under `state.lock`). */
    const foldInto = (state: SessionState) =>
      Effect.gen(function*() {
        cached = undefined
        const text = encodeJson(state)
        yield* writeText(statePath, text, strict)
        // A crash here leaves a log whose lines, its own change last (`record`), give this state again.
        yield* ioSync("remove", logPath, () => removeLogSync(logPath))
        remember(yield* stateKey, { stateBytes: text.length, log: undefined, state })
      })
    /** Appends the change from `current` to `next`, or folds when the log has grown past the state. */
    const record = (current: SessionState, next: SessionState) =>
      Effect.gen(function*() {
        const patch = diffState(current, next)
        const c = cached
        if (patch === undefined) return
        const line = JSON.stringify(patch) + "\n"
        const known = c?.log === undefined ? undefined : { ino: c.log.ino, size: c.log.seen }
        // A run that ends leaves its state whole in state.json, for people and tools that read it.
        const ended = next.status !== current.status && SETTLED.has(next.status)
        if (c === undefined || ended || (known?.size ?? 0) + line.length > Math.max(FOLD_BYTES, c.stateBytes)) {
          // Logged first: a log left by a crash after the new state.json replays to it, not undoing it.
          if (c === undefined || known !== undefined) yield* ioSync("append", logPath, () => appendLogSync(logPath, "\n" + line, strict, known))
          return yield* foldInto(next)
        }
        // A line torn by a crash is closed first, so it cannot swallow this one.
        const torn = c.log !== undefined && c.log.seen > c.log.end
        cached = undefined
        const after = yield* ioSync("append", logPath, () => appendLogSync(logPath, torn ? "\n" + line : line, strict, known))
        if (c.log !== undefined && after.ino !== c.log.ino) return
        cached = { ...c, log: { ino: after.ino, seen: after.size, end: after.size }, state: next }
      })

    const updateState = groupCommit(stateLock, (batch) =>
      Effect.acquireUseRelease(takeStateLock, () =>
        Effect.gen(function*() {
          const current = yield* readState
          const updatedAt = yield* nowIso
          const states: Array<Exit.Exit<SessionState, SessionError>> = []
          let next = current
          for (const f of batch) {
            try {
              next = snapshot({ ...f(next), updatedAt })
              states.push(Exit.succeed(next))
            } catch (defect) {
              // A function that throws is that caller's defect; the others still commit.
              states.push(Exit.die(defect))
            }
          }
          if (next !== current) yield* record(current, next)
          return states
        }), unlock)
    )

    const fold = stateLock.exclusive(Effect.suspend(() =>
      logStat.pipe(Effect.flatMap((log) =>
        log === undefined ? Effect.void : Effect.acquireUseRelease(takeStateLock, () => Effect.flatMap(readState, foldInto), unlock)
      ))
    )).pipe(Effect.uninterruptible)

    return { probe, readState, updateState, fold, forget: () => void (cached = undefined) }
  })
