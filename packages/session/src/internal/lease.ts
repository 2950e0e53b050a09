/**
 * The file store's ownership lease: `<session>/owner.lock`, a small JSON file created with
 * O_EXCL, naming the owning process (pid, its start time, host) and a random token. A lock whose
 * process is gone — or whose pid now belongs to another process, told apart by the start time
 * (Linux: field 22 of `/proc/<pid>/stat`) — is stale and may be taken over. Two takeovers at
 * once are serialized by an O_EXCL guard, `owner.lock.takeover`, which is itself stale after
 * `GUARD_STALE_MS` (its taker died mid-takeover).
 *
 * The same module is `state.lock`'s, taken around every state update. Its operations are
 * synchronous system calls on a few-byte file (a few microseconds each): through the thread pool
 * each one cost an event-loop round trip instead, which on a loaded machine is a scheduler wake-up
 * per call (strace of one delegation: about 110 such round trips, most of them here and in the
 * state write).
 */
import { randomBytes } from "node:crypto"
import { type BigIntStats, closeSync, fstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { errorCode, PRIVATE_FILE } from "./fs.ts"

/** Who holds a lease. */
export interface LeaseOwner {
  readonly pid: number
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  readonly startTime?: number | undefined
  readonly host: string
  readonly acquiredAt: string
  readonly token: string
}

const GUARD_STALE_MS = 10_000

/** A process's start time, or undefined where `/proc` cannot tell it (then the pid alone decides). */
export const processStartTime = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[19])
    return Number.isFinite(ticks) ? ticks : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return errorCode(cause) === "EPERM"
  }
}

/** Whether the lease's process still runs: on this host, its pid alive and not reused. */
export const isAlive = (owner: LeaseOwner): boolean => {
  if (owner.host !== hostname()) return true // another machine's process: we cannot tell; assume it runs
  if (!alive(owner.pid)) return false
  const start = processStartTime(owner.pid)
  return owner.startTime === undefined || start === undefined || start === owner.startTime
}

/** An unreadable lock: one being written (young, see `YOUNG_MS`) or one its writer died writing. */
const UNREADABLE: LeaseOwner = { pid: 0, host: hostname(), acquiredAt: "", token: "unreadable" }

/**
 * How long an unreadable lock counts as being written rather than stale. The lock is created in
 * place and then written, so between the two it is empty; the write is one call of ~150 bytes,
 * so only a process stopped between them (or killed there) leaves it empty for long. Shorter than
 * both callers' retry windows (5 s for `owner.lock`, 10 s for `state.lock`).
 */
const YOUNG_MS = 2_000

export const readOwner = (path: string): LeaseOwner | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LeaseOwner>
    return typeof parsed.pid === "number" && typeof parsed.token === "string" && typeof parsed.host === "string" ? parsed as LeaseOwner : UNREADABLE
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    if (cause instanceof SyntaxError) return UNREADABLE
    throw cause
  }
}

/**
 * Creates `path` with `content` unless it exists: opened with O_EXCL in place, then written with
 * one call. Readers may see it empty in between (see `YOUNG_MS`). It used to be a temp file
 * hard-linked into place, never seen half written but four more calls and a new directory entry
 * per lock: five temp files per delegation. A writer stopped longer than `YOUNG_MS` before its
 * write may have lost the file to a taker; one that took that long checks that the path is still
 * its file and otherwise gives up (`undefined`: contended, try again). It is not fsynced: a lock
 * only matters while its process lives, and one a power loss left empty reads as unreadable, then
 * stale. Returns the created file's identity, which `release` compares instead of reading it back.
 */
const createExclusive = (path: string, content: string): string | undefined => {
  let fd: number
  try {
    fd = openSync(path, "wx", PRIVATE_FILE)
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return undefined
    throw cause
  }
  const opened = performance.now()
  let written = false
  try {
    writeSync(fd, content)
    written = true
    const mine = identityOf(fstatSync(fd, { bigint: true }))
    // Written well within `YOUNG_MS` of its creation: no taker can have found it empty and old.
    if (performance.now() - opened < YOUNG_MS / 2) return mine
    return identityAt(path) === mine ? mine : undefined
  } finally {
    // Unwritten (the write threw) it would hold everyone off for `YOUNG_MS`: remove it if it is
    // still this file (never another taker's).
    if (!written && identityAt(path) === identityOf(fstatSync(fd, { bigint: true }))) unlinkQuietly(path)
    closeSync(fd)
  }
}

/**
 * A file's identity: its inode and birth time (a `chmod -R` of the home, as the privacy warning
 * advises, changes the change time, never these). A replacement that reuses the inode number
 * still differs in its birth time where the file system records one; and a lock is only replaced
 * once its holder looks dead or it stayed empty for `YOUNG_MS`.
 */
const identityOf = (stats: BigIntStats): string => `${stats.ino}:${stats.birthtimeNs}`
const identityAt = (path: string): string | undefined => {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false })
  return stats === undefined ? undefined : identityOf(stats)
}

const unlinkQuietly = (path: string): void => {
  try {
    unlinkSync(path)
  } catch {
    // already gone
  }
}

/**
 * This process's side of every lock it takes: its start time, host and a random token prefix,
 * looked up once (a `/proc` read, a `uname` and 8 random bytes were a tenth of a millisecond
 * per lock, four or five locks per delegation); each lock's token is the prefix and a count.
 */
let processSide: { readonly startTime: number | undefined; readonly host: string; readonly token: string; taken: number } | undefined
const thisProcess = () =>
  processSide?.token.startsWith(`${process.pid}.`) === true
    ? processSide
    : (processSide = { startTime: processStartTime(process.pid), host: hostname(), token: `${process.pid}.${randomBytes(8).toString("hex")}.`, taken: 0 })

/** A lock this process created: who it says holds it, and the file's identity (see `release`). */
export interface HeldLock {
  readonly owner: LeaseOwner
  readonly file: string
}

export type AcquireOutcome =
  | { readonly _tag: "Acquired"; readonly owner: LeaseOwner; readonly held: HeldLock }
  | { readonly _tag: "Owned"; readonly owner: LeaseOwner }
  | { readonly _tag: "Contended" }

/**
 * One attempt at the lease: created, held by a live process (`Owned`), or a takeover already
 * under way (`Contended`: try again shortly).
 */
export const tryAcquire = (path: string, now: Date): AcquireOutcome => {
  const self = thisProcess()
  const owner: LeaseOwner = {
    pid: process.pid,
    startTime: self.startTime,
    host: self.host,
    acquiredAt: now.toISOString(),
    token: `${self.token}${(self.taken++).toString(36)}`
  }
  const content = `${JSON.stringify(owner)}\n`
  const acquired = (file: string | undefined): AcquireOutcome => file === undefined ? { _tag: "Contended" } : { _tag: "Acquired", owner, held: { owner, file } }
  const created = createExclusive(path, content)
  if (created !== undefined) return acquired(created)
  const current = readOwner(path)
  // Released between our attempt and this read: try again (taking over "nothing" could remove
  // the lock another process creates meanwhile).
  if (current === undefined) return { _tag: "Contended" }
  if (current !== UNREADABLE && isAlive(current)) return { _tag: "Owned", owner: current }
  if (current === UNREADABLE && isYoung(path)) return { _tag: "Contended" }
  // Stale: take it over, one taker at a time.
  const guard = `${path}.takeover`
  if (createExclusive(guard, content) === undefined) {
    const mtime = statSync(guard, { throwIfNoEntry: false })?.mtimeMs
    if (mtime !== undefined && now.getTime() - mtime > GUARD_STALE_MS) unlinkQuietly(guard)
    return { _tag: "Contended" }
  }
  try {
    // Still the stale lock we saw (only takers replace a stale lock, one at a time)?
    const again = readOwner(path)
    if (again === undefined || again.token !== current.token) return { _tag: "Contended" }
    // Released and created anew meanwhile, now being written: not the stale one we saw.
    if (again === UNREADABLE && isYoung(path)) return { _tag: "Contended" }
    try {
      unlinkSync(path)
    } catch (cause) {
      if (errorCode(cause) !== "ENOENT") throw cause
    }
    return acquired(createExclusive(path, content))
  } finally {
    unlinkQuietly(guard)
  }
}

/**
 * Whether the file was modified within `YOUNG_MS` (gone: not young; the caller retries anyway).
 * Against the wall clock, not Effect's: the mtime is the file system's.
 */
const isYoung = (path: string): boolean => {
  const mtime = statSync(path, { throwIfNoEntry: false })?.mtimeMs
  return mtime !== undefined && Date.now() - mtime < YOUNG_MS
}

/**
 * Gives the lock up, if it is still the file this process created: its identity is compared
 * (one stat) instead of its content read back (four calls).
 */
export const release = (path: string, held: HeldLock): void => {
  let now: string | undefined
  try {
    now = identityAt(path)
  } catch {
    return
  }
  if (now === held.file) unlinkQuietly(path)
}
