/**
 * The state change log's file operations (`state.changes.jsonl`), synchronous like the other
 * small metadata calls of the delegation path (see `ioSync`): a few hundred bytes appended per
 * update, and reads from an offset.
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, statSync, unlinkSync, writeSync } from "node:fs"
import { errorCode, PRIVATE_FILE } from "./fs.ts"

/** The log's inode and size, or `undefined` when there is no log. */
export const logStatSync = (path: string): { readonly ino: bigint; readonly size: number } | undefined => {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false })
  return s === undefined ? undefined : { ino: s.ino, size: Number(s.size) }
}

/** The log's bytes from `offset`, with its inode and size then; `undefined` when there is no log. */
export const readLogSync = (path: string, offset: number): { readonly ino: bigint; readonly size: number; readonly bytes: Buffer } | undefined => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
  try {
    const s = fstatSync(fd, { bigint: true })
    const size = Number(s.size)
    const bytes = Buffer.alloc(Math.max(0, size - offset))
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, offset + read)
      if (n === 0) break
      read += n
    }
    return { ino: s.ino, size: offset + read, bytes: bytes.subarray(0, read) }
  } finally {
    closeSync(fd)
  }
}

/**
 * Appends `data` (whole lines) to the log, creating it private; with `durable`, synced before it
 * returns. Returns the log's inode and size after the write (from `known`, the log before it, if given).
 * A write or sync that fails is cut off again (the caller holds `state.lock`): its caller is told
 * the change failed, so none of it may stay, and a line written up to its last byte would
 * otherwise be completed by the next append's closing newline and count after all.
 */
export const appendLogSync = (
  path: string,
  data: string,
  durable: boolean,
  known?: { readonly ino: bigint; readonly size: number }
): { readonly ino: bigint; readonly size: number } => {
  const fd = openSync(path, "a", PRIVATE_FILE)
  try {
    const bytes = Buffer.from(data, "utf8")
    // Under `state.lock` the caller knows the log as it was, or one look tells: no one else writes to it meanwhile.
    const s = known === undefined ? fstatSync(fd, { bigint: true }) : undefined
    const before = known ?? { ino: s!.ino, size: Number(s!.size) }
    try {
      let written = 0
      while (written < bytes.length) written += writeSync(fd, bytes, written)
      if (durable) fdatasyncSync(fd)
    } catch (cause) {
      try {
        ftruncateSync(fd, before.size)
      } catch {
        // Left as written: a later reader skips an incomplete line; the caller hears of the failure.
      }
      throw cause
    }
    return { ino: before.ino, size: before.size + bytes.length }
  } finally {
    closeSync(fd)
  }
}

/** Removes the log; a log already gone is fine. */
export const removeLogSync = (path: string): void => {
  try {
    unlinkSync(path)
  } catch (cause) {
    if (errorCode(cause) !== "ENOENT") throw cause
  }
}
