/**
 * The file store's `Transcript`: an append-only `wire.jsonl`, written through. `append` writes
 * each event as it happens (one write, no fsync), so a `kill -9` loses at most the event being
 * written; `sync` fdatasyncs (turn boundaries, before announcements). A write that fails keeps
 * its events in memory and they go out with the next write.
 *
 * A child's transcript may be archived (`archive/<child>.wire.jsonl.gz`): it is then read from
 * the archive, and the first append restores it, so an archived child is continued like any other.
 */
import { existsSync } from "node:fs"
import { dirname } from "node:path"
import { Events } from "@dsh/core"
import { Effect, Scope, Semaphore } from "effect"
import type { SessionError } from "../SessionError.ts"
import type { ReadFromResult, ReadResult, Transcript } from "../SessionStore.ts"
import { type ArchiveResult, archiveTranscript, readArchive, restoreTranscript } from "./archive.ts"
import { io, ioError, ioSync } from "./fs.ts"
import type { DescriptorBudget } from "./descriptors.ts"
import { type Appender, makeAppender } from "./fsAppender.ts"
import { ensureDir, ensureDirSync } from "./fsDirs.ts"
import { readFromOffset, readTail, readTextIfExists } from "./fsReads.ts"
import { encodeRecord, parseWire } from "./wire.ts"

/** The file transcript, plus what the session handle needs to archive it without losing a write. */
export interface FileTranscript extends Transcript {
  /** Moves the transcript into `archivePath` (see `archive.ts`); its file handle is closed first. */
  readonly archive: (dryRun: boolean) => Effect.Effect<ArchiveResult | undefined, SessionError>
  /** Brings the archived transcript back now; false when there was none. */
  readonly restore: Effect.Effect<boolean, SessionError>
}

/** How much of an existing file is read to find the last `seq` when a transcript is opened. */
const TAIL_BYTES = 64 * 1024

interface TailState {
  readonly lastSeq: number
  /** The file ends without LF (a torn line): the next write must start on a fresh line. */
  readonly needsNewline: boolean
  readonly exists: boolean
}

const ABSENT: TailState = { lastSeq: 0, needsNewline: false, exists: false }

/**
 * Where the next `seq` starts, read from the end of the file (the whole file only if needed). A
 * missing file (every new child's) is told by one synchronous check rather than an open through
 * the thread pool (see `ioSync`).
 */
const scanTailOf = (path: string): Effect.Effect<TailState, SessionError> =>
  ioSync("read", path, () => existsSync(path)).pipe(
    Effect.flatMap((present) => present ? io("read", path, () => scanTail(path)) : Effect.succeed(ABSENT))
  )

/** Where the next `seq` starts, read from the end of the file (the whole file only if needed). */
const scanTail = async (path: string): Promise<TailState> => {
  const tail = await readTail(path, TAIL_BYTES)
  if (tail === undefined) return ABSENT
  const needsNewline = tail.size > 0 && !tail.text.endsWith("\n")
  let { lastSeq } = parseWire(tail.text, path, !tail.whole)
  if (lastSeq === 0 && !tail.whole) {
    lastSeq = parseWire((await readTextIfExists(path)) ?? "", path).lastSeq
  }
  return { lastSeq, needsNewline, exists: true }
}

/** What the transcript knows of its live file. Changed only while holding the transcript's lock. */
interface LiveFile {
  appender: Appender
  /** The store's scope closed: appends open the file for each write. */
  scopeClosed: boolean
  seq: number
  /** Encoded records not yet written. */
  pending: string
  needsNewline: boolean
  exists: boolean
  /** The file's directory is known to exist (the file did, or this process made it). */
  dirReady: boolean
  /** The file's directory entry is known to be on disk (it existed, or a sync covered it). */
  entrySynced: boolean
  /** Bytes were written since the last successful fsync. */
  unsynced: boolean
  /**
   * A failed fsync of this file. Linux reports a writeback error once and may then drop the
   * pages it could not write, so a retried fsync can succeed while events are missing on disk:
   * every later sync fails with this one until the file is written anew (a restore, an archive).
   */
  syncFailure: SessionError | undefined
  /** No live file, and the archive was not looked at yet: the first append must look (and restore). */
  archiveUnchecked: boolean
}

/**
 * Writes the buffer (and fsyncs when `durable`). Call only while holding the transcript's lock.
 * Uninterruptible: once the buffer is taken, the write must finish or put it back. The write is
 * synchronous (see `Appender`); only a sync leaves the event loop.
 */
const writePendingOf = (path: string, strict: boolean, live: LiveFile) => (durable: boolean): Effect.Effect<void, SessionError> =>
  Effect.suspend(() => {
    if (live.pending === "" && !(durable && live.unsynced)) return Effect.void
    const chunk = (live.needsNewline && live.pending !== "" ? "\n" : "") + live.pending
    live.pending = ""
    const makeDir = live.dirReady
      ? Effect.void
      : strict
      ? io("create the directory of", path, () => ensureDir(dirname(path), true))
      : ioSync("create the directory of", path, () => ensureDirSync(dirname(path)))
    const write = chunk === "" ? Effect.void : ioSync("append to", path, () => live.appender.write(chunk)).pipe(
      Effect.tapError(() =>
        Effect.sync(() => {
          // Nothing, or only a torn line, reached the file: keep the events for a retry.
          live.pending = chunk + live.pending
          live.needsNewline = true
        })
      ),
      Effect.tap(() =>
        Effect.sync(() => {
          live.exists = true
          live.dirReady = true
          live.needsNewline = false
          live.unsynced = true
        })
      )
    )
    // Strict: a new file's directory entry is fsynced too. Otherwise the file's own fdatasync
    // is trusted to commit the journal transaction that created it (see `SyncPolicy`).
    const sync = !durable ? Effect.void : live.syncFailure !== undefined ? Effect.fail(live.syncFailure) : Effect.suspend(() => io("fsync", path, () => live.appender.sync(strict && !live.entrySynced))).pipe(
      Effect.flatMap((outcome) => {
        if (outcome.syncError !== undefined) {
          live.syncFailure = ioError("fsync", path, outcome.syncError)
          return Effect.fail(live.syncFailure)
        }
        live.unsynced = false
        live.entrySynced = true
        return Effect.void
      })
    )
    return makeDir.pipe(Effect.andThen(write), Effect.andThen(sync))
  }).pipe(Effect.uninterruptible)

/**
 * The transcript's readers. Each first writes the buffer (`flush`, under the transcript's lock), so
 * a reader sees every event appended before it.
 */
const makeReaders = (
  path: string,
  archivePath: string | undefined,
  lock: Semaphore.Semaphore,
  flush: Effect.Effect<void, SessionError>,
  knownEmpty: () => boolean
): Pick<Transcript, "read" | "readFrom"> => {
  /** The transcript's text: the live file, else the archive (a reader never restores). */
  // A transcript with neither a live file nor an archive (a child about to start) is told
  // by synchronous checks, without two failing opens through the thread pool; one this
  // process made and never wrote to, without looking at all.
  const nothingOnDisk = ioSync("read", path, () => knownEmpty() || (!existsSync(path) && (archivePath === undefined || !existsSync(archivePath))))
  const content = nothingOnDisk.pipe(Effect.flatMap((none) =>
    none ? Effect.succeed("") : io("read", path, () => readTextIfExists(path)).pipe(
      Effect.flatMap((text) =>
        text !== undefined || archivePath === undefined
          ? Effect.succeed(text ?? "")
          : io("read", archivePath, () => readArchive(archivePath)).pipe(Effect.map((b) => b?.toString("utf8") ?? ""))
      )
    )
  ))

  const read: Effect.Effect<ReadResult, SessionError> = lock.withPermit(
    flush.pipe(
      Effect.andThen(content),
      Effect.map((text) => parseWire(text, path))
    )
  ).pipe(
    Effect.tap(({ warnings }) => Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true })),
    Effect.map(({ records, warnings }): ReadResult => ({ records, warnings }))
  )

  const readFrom = (cursor: number): Effect.Effect<ReadFromResult, SessionError> =>
    lock.withPermit(flush.pipe(
      Effect.andThen(nothingOnDisk),
      Effect.flatMap((none) =>
        none ? Effect.succeed(Buffer.alloc(0)) : io("read", path, () => readFromOffset(path, cursor)).pipe(
          Effect.flatMap((bytes) =>
            bytes !== undefined || archivePath === undefined
              ? Effect.succeed(bytes ?? Buffer.alloc(0))
              : io("read", archivePath, () => readArchive(archivePath)).pipe(Effect.map((b) => b?.subarray(cursor) ?? Buffer.alloc(0)))
          )
        )
      )
    )).pipe(Effect.map((bytes): ReadFromResult => {
      // Whole lines only: a line still being written is read next time.
      const end = bytes.lastIndexOf(0x0a) + 1
      const { records, warnings } = parseWire(bytes.subarray(0, end).toString("utf8"), path)
      return { records, warnings, cursor: cursor + end }
    }))
  return { read, readFrom }
}

/** The live file as found: `tail` is what a scan of it saw (nothing, for a `fresh` one). */
const liveFileOf = (appender: Appender, tail: TailState, fresh: boolean, archivePath: string | undefined): LiveFile => ({
  appender,
  scopeClosed: false,
  seq: tail.lastSeq,
  pending: "",
  needsNewline: tail.needsNewline,
  exists: tail.exists,
  dirReady: fresh || tail.exists,
  entrySynced: tail.exists,
  unsynced: false,
  syncFailure: undefined,
  // A directory made here has never held a transcript, so none was archived from it.
  archiveUnchecked: !fresh && !tail.exists && archivePath !== undefined
})

/**
 * Runs `effect`, which renames a file over the live one or removes it: the kept descriptor
 * would go on writing to the old file, so it is closed first and a new appender kept after.
 * Call while holding the transcript's lock.
 */
const replacingLiveFileOf = (path: string, live: LiveFile, descriptors: DescriptorBudget) => <A>(effect: Effect.Effect<A, SessionError>): Effect.Effect<A, SessionError> =>
  io("close", path, live.appender.close).pipe(
    Effect.andThen(effect),
    Effect.ensuring(Effect.sync(() => {
      live.appender = makeAppender(path, descriptors)
      // After the store closed, appends open the file for each write (as before).
      if (live.scopeClosed) void live.appender.close()
    }))
  )

/**
 * Opens (without creating) the transcript at `path`; the directory is created on first
 * write. The file handle kept open for appends is closed when `scope` (the store's) closes.
 * With `archivePath`, the transcript may live archived there (children's transcripts). With
 * `fresh`, the caller has just created the directory: there is no file to look at.
 */
export const makeFileTranscript = (
  path: string,
  scope: Scope.Scope,
  descriptors: DescriptorBudget,
  archivePath?: string,
  strict = true,
  fresh = false
): Effect.Effect<FileTranscript, SessionError> =>
  Effect.gen(function*() {
    const tail = fresh ? ABSENT : yield* scanTailOf(path)
    const lock = yield* Semaphore.make(1)
    const live = liveFileOf(makeAppender(path, descriptors), tail, fresh, archivePath)
    const replacingLiveFile = replacingLiveFileOf(path, live, descriptors)
    yield* Scope.addFinalizer(
      scope,
      lock.withPermit(Effect.suspend(() => {
        live.scopeClosed = true
        return io("close", path, live.appender.close)
      })).pipe(Effect.catch(() => Effect.void))
    )
    /** Takes the live file's state from disk again (after an archive or a restore). Call while holding `lock`. */
    const rescan = scanTailOf(path).pipe(Effect.map((t) => {
      live.seq = Math.max(live.seq, t.lastSeq)
      live.needsNewline = t.needsNewline
      live.exists = t.exists
      live.dirReady = live.dirReady || t.exists
      live.entrySynced = t.exists
      live.unsynced = false
      // Written anew and fsynced (a restore).
      live.syncFailure = undefined
    }))

    /** Before the first append to a transcript without a live file: restore it if it is archived. */
    const restoreIfArchived: Effect.Effect<boolean, SessionError> = Effect.suspend(() => {
      if (!live.archiveUnchecked || archivePath === undefined) return Effect.succeed(false)
      // Most children were never archived: one synchronous check instead of a read that fails.
      if (!existsSync(archivePath)) {
        live.archiveUnchecked = false
        return Effect.succeed(false)
      }
      // A live file started afresh beside the archive (after a crash) is merged with it and replaced.
      return replacingLiveFile(io("restore", archivePath, () => restoreTranscript(archivePath, path))).pipe(
        Effect.tap((restored) => {
          live.archiveUnchecked = false
          return restored ? rescan : Effect.void
        })
      )
    }).pipe(Effect.uninterruptible)

    const writePending = writePendingOf(path, strict, live)

    const append = (event: Events.AgentEvent): Effect.Effect<void, SessionError> =>
      Events.isEphemeral(event)
        ? Effect.void
        : Effect.clockWith((clock) => {
          const ts = new Date(clock.currentTimeMillisUnsafe()).toISOString()
          // The common case takes its seq at once (appends keep their call order); only the
          // first append to an archived transcript waits for the restore to learn the last seq.
          if (!live.archiveUnchecked) {
            live.seq += 1
            live.pending += encodeRecord(event, live.seq, ts)
            return lock.withPermit(writePending(false))
          }
          return lock.withPermit(restoreIfArchived.pipe(Effect.andThen(Effect.suspend(() => {
            live.seq += 1
            live.pending += encodeRecord(event, live.seq, ts)
            return writePending(false)
          }))))
        })

    // Made here and never appended to (an archive needs appends first): nothing on disk yet.
    const { read, readFrom } = makeReaders(path, archivePath, lock, writePending(false), () => fresh && live.seq === 0)

    const archive = (dryRun: boolean): Effect.Effect<ArchiveResult | undefined, SessionError> =>
      archivePath === undefined ? Effect.succeed(undefined) : lock.withPermit(
        writePending(true).pipe(
          Effect.andThen(Effect.suspend(() => {
            if (dryRun) return io("archive", path, () => archiveTranscript(path, archivePath, true))
            // The next append (a continuation) restores the transcript first.
            return replacingLiveFile(io("archive", path, () => archiveTranscript(path, archivePath, false))).pipe(
              Effect.tap(() =>
                Effect.sync(() => {
                  live.exists = false
                  // What it held is in the archive, written anew and fsynced.
                  live.syncFailure = undefined
                  live.entrySynced = false
                  live.needsNewline = false
                  live.archiveUnchecked = true
                })
              )
            )
          }))
        )
      ).pipe(Effect.uninterruptible)

    return {
      location: path,
      append,
      sync: lock.withPermit(writePending(true)),
      read,
      readFrom,
      archive,
      restore: archivePath === undefined ? Effect.succeed(false) : lock.withPermit(
        Effect.suspend(() => {
          live.archiveUnchecked = true
          return restoreIfArchived
        })
      )
    } satisfies FileTranscript
  })
