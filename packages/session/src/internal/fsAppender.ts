/** The transcript's appender: one kept descriptor, synchronous writes, fdatasync off the event loop. */
import { closeSync, fdatasync, openSync, writeSync } from "node:fs"
import { dirname } from "node:path"
import type { DescriptorBudget, Holder } from "./descriptors.ts"
import { PRIVATE_FILE } from "./fs.ts"
import { syncDir } from "./fsDirs.ts"

/** What a sync achieved: `syncError` is set if the fsync failed. */
export interface SyncOutcome {
  readonly syncError?: unknown
}

/**
 * Appends to one file through a descriptor that stays open between writes. A write is one
 * synchronous `write(2)`, returned from at once (an event is a few hundred bytes: a round trip
 * through the thread pool, or even a resolved Promise per event, costs more than the write); a
 * sync fdatasyncs off the event loop. Calls must not overlap a `sync` in flight (the
 * transcript's lock serializes them). After `close`, writes still work and open the file for each.
 * The descriptor counts against the store's `budget`, which may close it while idle (it is
 * opened again on the next call; an fdatasync covers the file's data whichever descriptor wrote it);
 * with the budget full of descriptors busy syncing, a call opens the file for itself and closes it after.
 */
export interface Appender {
  /** Appends `data` (O_APPEND). Throws when it failed: nothing, or a torn tail, reached the file. */
  readonly write: (data: string) => void
  /**
   * fdatasyncs what was written and, with `syncEntry`, the directory too (for a file this
   * process created). Never rejects: a failed fsync resolves with `syncError`, since the bytes
   * are in the file and must not be written twice.
   */
  readonly sync: (syncEntry: boolean) => Promise<SyncOutcome>
  readonly close: () => Promise<void>
}

const datasync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())))

const tooManyOpen = (e: unknown) => {
  const code = (e as { readonly code?: unknown } | undefined)?.code
  return code === "EMFILE" || code === "ENFILE"
}

export const makeAppender = (path: string, budget: DescriptorBudget): Appender => {
  let kept: number | undefined
  let closed = false
  let syncing = false
  const closeQuietly = (fd: number) => {
    try {
      closeSync(fd)
    } catch {
      // already closed
    }
  }
  const holder: Holder = {
    release: () => {
      if (syncing) return false
      if (kept !== undefined) closeQuietly(kept)
      kept = undefined
      return true
    }
  }
  const drop = (fd: number) => {
    if (kept === fd) {
      kept = undefined
      budget.forget(holder)
    }
    closeQuietly(fd)
  }
  const openFile = () => {
    try {
      return openSync(path, "a", PRIVATE_FILE)
    } catch (cause) {
      if (!tooManyOpen(cause)) throw cause
      // Out of descriptors: give back idle ones, then try once more.
      budget.shed()
      return openSync(path, "a", PRIVATE_FILE)
    }
  }
  /** The kept descriptor, or one opened for this call only (after `close`, or with the budget full of syncs). */
  const descriptor = () => {
    if (kept !== undefined) {
      budget.touch(holder)
      return kept
    }
    const fd = openFile()
    if (!closed && budget.touch(holder)) kept = fd
    return fd
  }
  /** After a call: a descriptor opened for it alone is closed (once: a failed call has dropped it already). */
  const settle = (fd: number) => {
    if (fd !== kept) closeQuietly(fd)
  }
  return {
    write: (data) => {
      const fd = descriptor()
      try {
        const bytes = Buffer.from(data, "utf8")
        let written = 0
        while (written < bytes.length) written += writeSync(fd, bytes, written)
      } catch (cause) {
        // A descriptor that failed a write is not trusted again; the next write reopens the file.
        drop(fd)
        throw cause
      }
      settle(fd)
    },
    sync: (syncEntry) =>
      budget.syncTurn(async () => {
        let fd: number | undefined
        try {
          fd = descriptor()
          syncing = true
          await datasync(fd)
          if (syncEntry) await syncDir(dirname(path))
          return {}
        } catch (syncError) {
          return { syncError }
        } finally {
          syncing = false
          if (fd !== undefined) settle(fd)
        }
      }),
    close: async () => {
      closed = true
      if (kept !== undefined) drop(kept)
    }
  }
}
