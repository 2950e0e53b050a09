/** Reads of the file store: whole files, a file's identity, a tail, everything after an offset. */
import { readFileSync, statSync } from "node:fs"
import { type FileHandle, open, readFile } from "node:fs/promises"
import { errorCode } from "./fs.ts"

/** A missing file (ENOENT) reads as `undefined`; any other failure is the caller's to see. */
const missingAsUndefined = (cause: unknown): undefined => {
  if (errorCode(cause) === "ENOENT") return undefined
  throw cause
}

/** The file's text, or `undefined` when it does not exist (synchronous, see `ioSync`). */
export const readTextIfExistsSync = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch (cause) {
    return missingAsUndefined(cause)
  }
}

/** A file's identity (inode, birth, size, modification time), or `undefined` when it does not exist. */
export const fileIdentitySync = (path: string): string | undefined => {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false })
  return s === undefined ? undefined : `${s.ino}:${s.birthtimeNs}:${s.size}:${s.mtimeNs}`
}

/** The file's text, or `undefined` when it does not exist. */
export const readTextIfExists = (path: string): Promise<string | undefined> => readFile(path, "utf8").catch(missingAsUndefined)

/** A file opened for reading, or `undefined` when it does not exist. */
export const openIfExists = (path: string): Promise<FileHandle | undefined> => open(path, "r").catch(missingAsUndefined)

/** Up to `length` bytes from `position`: fewer only when the file is shorter than it was when measured. */
const readRange = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length)
  let read = 0
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read)
    if (bytesRead === 0) break
    read += bytesRead
  }
  return buffer.subarray(0, read)
}

/** `f` over the opened file and its size, closed after; `undefined` when the file does not exist. */
const withOpenFile = async <A>(path: string, f: (handle: FileHandle, size: number) => Promise<A>): Promise<A | undefined> => {
  const handle = await openIfExists(path)
  if (handle === undefined) return undefined
  try {
    return await f(handle, (await handle.stat()).size)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** The last `bytes` of a file (all of it if smaller), or `undefined` when it does not exist. */
export const readTail = (
  path: string,
  bytes: number
): Promise<{ readonly text: string; readonly size: number; readonly whole: boolean } | undefined> =>
  withOpenFile(path, async (handle, size) => {
    const length = Math.min(size, bytes)
    const text = (await readRange(handle, size - length, length)).toString("utf8")
    return { text, size, whole: length === size }
  })

/** The bytes of a file from `offset` to its end, or `undefined` when it does not exist. */
export const readFromOffset = (path: string, offset: number): Promise<Buffer | undefined> =>
  withOpenFile(path, (handle, size) => readRange(handle, offset, Math.max(0, size - offset)))
