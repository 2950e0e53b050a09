/** Whole-file writes of the file store: atomic replaces (durable or group commit) and exclusive creates. */
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs"
import { link, open, rename, unlink } from "node:fs/promises"
import { dirname } from "node:path"
import { errorCode, PRIVATE_FILE, tempBeside } from "./fs.ts"
import { syncDir } from "./fsDirs.ts"

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

/** Writes `data` to the new file `temp` (refused if it exists), synchronously, without fsync. */
const writeTempSync = (temp: string, data: string): void => {
  const fd = openSync(temp, "wx", PRIVATE_FILE)
  try {
    const bytes = Buffer.from(data, "utf8")
    let written = 0
    while (written < bytes.length) written += writeSync(fd, bytes, written)
  } finally {
    closeSync(fd)
  }
}

const removeTempSync = (temp: string): void => {
  try {
    unlinkSync(temp)
  } catch {
    // never created, or already renamed
  }
}

/**
 * `writeFileAtomic` without fsyncs (group commit): the temp file is written synchronously (one
 * write to the page cache, see `ioSync`), the rename goes through the thread pool. A rename over
 * an existing file makes ext4 (auto_da_alloc) start writing the new file's blocks out, which under
 * disk load blocks for milliseconds: a profile of 100 parallel children with it on the event loop
 * had a third of all CPU time in `rename`.
 */
export const writeFileAtomicGroup = async (path: string, data: string): Promise<void> => {
  const temp = tempBeside(path)
  try {
    writeTempSync(temp, data)
    await rename(temp, path)
  } catch (cause) {
    removeTempSync(temp)
    throw cause
  }
}

/**
 * `writeFileAtomicGroup` for a file that cannot exist yet (a new session's state, a new child's
 * meta): with nothing to replace there is nothing for the rename to flush, so it is synchronous too.
 */
export const writeFileAtomicFreshSync = (path: string, data: string): void => {
  const temp = tempBeside(path)
  try {
    writeTempSync(temp, data)
    renameSync(temp, path)
  } catch (cause) {
    removeTempSync(temp)
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
