/** The transcript's appender: one kept descriptor, synchronous writes, fdatasync off the event loop. */
import { closeSync, fdatasync, openSync, writeSync } from "node:fs"
import { dirname } from "node:path"
import { PRIVATE_FILE } from "./fs.ts"
import { syncDir } from "./fsDirs.ts"

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
