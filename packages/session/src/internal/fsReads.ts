/** Reads of the file store: whole files, a file's identity, a tail, everything after an offset. */
import { readFileSync, statSync } from "node:fs"
import { type FileHandle, open, readFile } from "node:fs/promises"
import { errorCode } from "./fs.ts"

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

/** The file's text, or `undefined` when it does not exist. */
export const readTextIfExists = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, "utf8")
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
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
