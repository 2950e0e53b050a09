/** Directory helpers of the file store: listing, creating (durably or not), syncing, sizing. */
import { type Dirent, mkdirSync } from "node:fs"
import { lstat, mkdir, open, readdir } from "node:fs/promises"
import { dirname, join } from "node:path"
import { errorCode, isTempFile, PRIVATE_DIR } from "./fs.ts"

/**
 * `mkdir -p` without any fsync (group commit), synchronous (see `ioSync`); true when it created
 * `path` (nothing can be in it yet).
 */
export const ensureDirSync = (path: string): boolean => mkdirSync(path, { recursive: true, mode: PRIVATE_DIR }) !== undefined

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
 * mkdir call). True when it created `path`.
 */
export const ensureDir = async (path: string, durable = true): Promise<boolean> => {
  const created = await mkdir(path, { recursive: true, mode: PRIVATE_DIR })
  if (created === undefined) return false
  if (!durable) return true
  const parents: Array<string> = []
  for (let dir = path; ; dir = dirname(dir)) {
    parents.push(dirname(dir))
    if (dir === created || dirname(dir) === dir) break
  }
  await Promise.all(parents.map(syncDir))
  return true
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
