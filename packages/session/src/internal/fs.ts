/**
 * The file store's only contact with `node:fs`. The helpers are plain Promise code (so
 * `try`/`finally` can close handles); Effect code calls them through `io`, which turns any
 * rejection into a typed `SessionError` with reason `Io`.
 */
import { randomBytes } from "node:crypto"
import { closeSync, type Dirent, fdatasync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs"
import { type FileHandle, link, lstat, mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { Effect } from "effect"
import { SessionError } from "../SessionError.ts"

/**
 * Modes of everything the store writes. Sessions hold prompts, tool output and whatever secret a
 * tool printed, so only the owner may read them. The modes are passed explicitly to every
 * mkdir/open: a umask can only narrow them (022, 000 or 077 all give these).
 */
export const PRIVATE_DIR = 0o700
export const PRIVATE_FILE = 0o600

/** The errno code of a Node fs error (`ENOENT`, …), if it has one. */
export const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The typed error for a failed file operation: what we did, where, and why. */
export const ioError = (operation: string, path: string, cause: unknown): SessionError =>
  new SessionError({ reason: "Io", detail: `cannot ${operation} ${path}: ${describe(cause)}` })

/**
 * Runs one fs Promise as an Effect whose only failure is a `SessionError` (`Io`). It is
 * uninterruptible: the Promise cannot be cancelled, so an interrupted fiber must still wait
 * for it, or a lock would be released while a write is still landing.
 */
export const io = <A>(operation: string, path: string, run: () => Promise<A>): Effect.Effect<A, SessionError> =>
  Effect.uninterruptible(Effect.tryPromise({ try: run, catch: (cause) => ioError(operation, path, cause) }))

/**
 * Runs one synchronous fs call as an Effect failing with a `SessionError` (`Io`). For the small
 * metadata operations of the delegation path (a stat, a lock file, a state write to the page
 * cache): a few microseconds each on the event loop, where a thread-pool call costs a round trip
 * through the loop — on a loaded machine a scheduler wake-up each, and with them about 110 per
 * delegation the file store's overhead was mostly waiting. fsyncs stay asynchronous.
 */
export const ioSync = <A>(operation: string, path: string, run: () => A): Effect.Effect<A, SessionError> =>
  Effect.try({ try: run, catch: (cause) => ioError(operation, path, cause) })

/** The file's text, or `undefined` when it does not exist (synchronous, see `ioSync`). */
export const readTextIfExistsSync = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
}

/** A file's identity (inode, birth, size, modification time), or `undefined` when it does not exist. */
export const fileIdentitySync = (path: string): string | undefined => {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false })
  return s === undefined ? undefined : `${s.ino}:${s.birthtimeNs}:${s.size}:${s.mtimeNs}`
}

/** `mkdir -p` without any fsync (group commit), synchronous (see `ioSync`). */
export const ensureDirSync = (path: string): void => void mkdirSync(path, { recursive: true, mode: PRIVATE_DIR })

/** The file's text, or `undefined` when it does not exist. */
export const readTextIfExists = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, "utf8")
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
}

/**
 * Whether a session directory holds data besides its state (a transcript, children, tasks, an
 * archive): a directory with none is one being created; one with some but no `state.json` has
 * lost its state, and must be reported rather than skipped.
 */
export const holdsSessionData = async (dir: string): Promise<boolean> =>
  (await listDir(dir)).some((e) => !isTempFile(e.name) && e.name !== "state.json" && e.name !== "state.lock")

/** Directory entries, or none when the directory does not exist yet. */
export const listDir = async (path: string): Promise<ReadonlyArray<Dirent>> => {
  try {
    return await readdir(path, { withFileTypes: true })
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return []
    throw cause
  }
}

/** Creates one directory; `false` if it already exists (how `create` refuses a taken id). */
export const makeDirIfAbsent = async (path: string): Promise<boolean> => {
  try {
    await mkdir(path, { mode: PRIVATE_DIR })
    return true
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return false
    throw cause
  }
}

/** `makeDirIfAbsent`, synchronous (see `ioSync`). */
export const makeDirIfAbsentSync = (path: string): boolean => {
  try {
    mkdirSync(path, { mode: PRIVATE_DIR })
    return true
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return false
    throw cause
  }
}

/** Errors that mean "this platform or filesystem cannot fsync a directory", not a failure. */
const dirSyncUnsupported = new Set(["EISDIR", "EINVAL", "EPERM", "EACCES", "EBADF", "ENOTSUP", "EOPNOTSUPP"])

/** Flushes a directory's entries (a create or rename inside it) where the platform allows it. */
export const syncDir = async (path: string): Promise<void> => {
  let handle
  try {
    handle = await open(path, "r")
    await handle.sync()
  } catch (cause) {
    const code = errorCode(cause)
    if (code === undefined || !dirSyncUnsupported.has(code)) throw cause
  } finally {
    await handle?.close().catch(() => undefined)
  }
}

/**
 * `mkdir -p`, and if it created anything and `durable`, fsyncs the parent of every new directory
 * (all at once) so the new entries survive a crash. Cheap when the directory already exists (one
 * mkdir call).
 */
export const ensureDir = async (path: string, durable = true): Promise<void> => {
  const created = await mkdir(path, { recursive: true, mode: PRIVATE_DIR })
  if (created === undefined || !durable) return
  const parents: Array<string> = []
  for (let dir = path; ; dir = dirname(dir)) {
    parents.push(dirname(dir))
    if (dir === created || dirname(dir) === dir) break
  }
  await Promise.all(parents.map(syncDir))
}

/** A fresh temp name in `path`'s directory (same filesystem, so a rename or link is atomic). */
const tempBeside = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)

/** Creates `file` (private, refused if it exists) holding `data`, synced to disk when `durable`. */
const writeSynced = async (file: string, data: string, durable = true): Promise<void> => {
  const handle = await open(file, "wx", PRIVATE_FILE)
  try {
    await handle.writeFile(data, "utf8")
    if (durable) await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * Replaces `path` atomically: write a temp file in the same directory, fsync it, rename it
 * over the target, fsync the directory. A crash at any point leaves either the old file or
 * the new one, never a mix; a failed attempt removes its temp file. Without `durable` the two
 * fsyncs are left out: still atomic for a killed process (the rename is), and on disk with the
 * next commit of the filesystem's journal (the next transcript sync, see `SyncPolicy`).
 */
export const writeFileAtomic = async (path: string, data: string, durable = true): Promise<void> => {
  const dir = dirname(path)
  const temp = tempBeside(path)
  try {
    await writeSynced(temp, data, durable)
    await rename(temp, path)
  } catch (cause) {
    await unlink(temp).catch(() => undefined)
    throw cause
  }
  if (durable) await syncDir(dir)
}

/**
 * `writeFileAtomic` without fsyncs (group commit): the temp file is written synchronously (one
 * write to the page cache, see `ioSync`), the rename goes through the thread pool. A rename over
 * an existing file makes ext4 (auto_da_alloc) start writing the new file's blocks out, which under
 * disk load blocks for milliseconds: a profile of 100 parallel children with it on the event loop
 * had a third of all CPU time in `rename`. With `fresh` (the target cannot exist), the rename
 * is synchronous too.
 */
export const writeFileAtomicGroup = async (path: string, data: string, fresh = false): Promise<void> => {
  const temp = tempBeside(path)
  try {
    const fd = openSync(temp, "wx", PRIVATE_FILE)
    try {
      const bytes = Buffer.from(data, "utf8")
      let written = 0
      while (written < bytes.length) written += writeSync(fd, bytes, written)
    } finally {
      closeSync(fd)
    }
    // A file that cannot exist yet (a new session's state) has nothing to flush: renamed here.
    if (fresh) renameSync(temp, path)
    else await rename(temp, path)
  } catch (cause) {
    try {
      unlinkSync(temp)
    } catch {
      // never created, or already renamed
    }
    throw cause
  }
}

/**
 * Creates `path` with `data` unless it exists (then `false`, and the file is left as it is): a
 * temp file fsynced, hard-linked into place (atomic, refused if `path` exists), the directory
 * fsynced. How a rebuilt state is written without replacing one another process wrote meanwhile.
 */
export const writeFileExclusive = async (path: string, data: string): Promise<boolean> => {
  const dir = dirname(path)
  const temp = tempBeside(path)
  try {
    await writeSynced(temp, data)
    await link(temp, path)
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return false
    throw cause
  } finally {
    await unlink(temp).catch(() => undefined)
  }
  await syncDir(dir)
  return true
}

/** True for `writeFileAtomic`'s temp files, which remain only if a process died mid-write. */
export const isTempFile = (name: string): boolean => name.startsWith(".") && name.endsWith(".tmp")

/** What an append achieved: the bytes are written, and `syncError` is set if the fsync failed. */
export interface AppendOutcome {
  readonly syncError?: unknown
}

/**
 * Appends to one file through a descriptor that stays open between writes. A write is one
 * synchronous `write(2)` (an event is a few hundred bytes: a round trip through the thread pool
 * would cost more than the write); a durable append then fdatasyncs off the event loop. Calls
 * must not overlap (the transcript's lock serializes them). After `close`, appends still work and
 * open the file for each write.
 */
export interface Appender {
  /**
   * Appends `data` (O_APPEND) and, when `durable`, fdatasyncs, and with `syncEntry` also
   * syncs the directory (for a file this process created). A failed write rejects (nothing,
   * or a torn tail, reached the file); a failed fsync resolves with `syncError`, since the
   * bytes are in the file and must not be written twice.
   */
  readonly append: (data: string, durable: boolean, syncEntry: boolean) => Promise<AppendOutcome>
  readonly close: () => Promise<void>
}

const datasync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())))

export const makeAppender = (path: string): Appender => {
  let kept: number | undefined
  let closed = false
  const drop = (fd: number) => {
    if (kept === fd) kept = undefined
    try {
      closeSync(fd)
    } catch {
      // already closed
    }
  }
  return {
    append: async (data, durable, syncEntry) => {
      const fd = kept ?? openSync(path, "a", PRIVATE_FILE)
      if (!closed) kept = fd
      try {
        const bytes = Buffer.from(data, "utf8")
        let written = 0
        while (written < bytes.length) written += writeSync(fd, bytes, written)
      } catch (cause) {
        // A descriptor that failed a write is not trusted again; the next append reopens the file.
        drop(fd)
        throw cause
      }
      try {
        if (!durable) return {}
        try {
          await datasync(fd)
          if (syncEntry) await syncDir(dirname(path))
          return {}
        } catch (syncError) {
          return { syncError }
        }
      } finally {
        if (closed) drop(fd)
      }
    },
    close: async () => {
      closed = true
      if (kept !== undefined) drop(kept)
    }
  }
}

/** A file opened for reading, or `undefined` when it does not exist. */
export const openIfExists = async (path: string): Promise<FileHandle | undefined> => {
  try {
    return await open(path, "r")
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
}

/** The last `bytes` of a file (all of it if smaller), or `undefined` when it does not exist. */
export const readTail = async (
  path: string,
  bytes: number
): Promise<{ readonly text: string; readonly size: number; readonly whole: boolean } | undefined> => {
  const handle = await openIfExists(path)
  if (handle === undefined) return undefined
  try {
    const { size } = await handle.stat()
    const length = Math.min(size, bytes)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, size - length + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return { text: buffer.subarray(0, read).toString("utf8"), size, whole: length === size }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** The bytes of a file from `offset` to its end, or `undefined` when it does not exist. */
export const readFromOffset = async (path: string, offset: number): Promise<Buffer | undefined> => {
  const handle = await openIfExists(path)
  if (handle === undefined) return undefined
  try {
    const { size } = await handle.stat()
    const length = Math.max(0, size - offset)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, offset + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return buffer.subarray(0, read)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** The bytes of every file under `dir` (0 when it does not exist); links are not followed. */
export const treeBytes = async (dir: string): Promise<number> => {
  let total = 0
  for (const entry of await listDir(dir)) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += await treeBytes(path)
    else if (entry.isFile()) total += await lstat(path).then((s) => s.size, () => 0)
  }
  return total
}
