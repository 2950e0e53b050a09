/**
 * The file store's `Transcript`: an append-only `wire.jsonl`, written through. `append` writes
 * each event as it happens (one write, no fsync), so a `kill -9` loses at most the event being
 * written; `sync` fdatasyncs (turn boundaries, before announcements). A write that fails keeps
 * its events in memory and they go out with the next write.
 */
import { dirname } from "node:path"
import { type AgentEvent, isEphemeral } from "@dsh/core"
import { Effect, Scope, Semaphore } from "effect"
import type { SessionError } from "../SessionError.ts"
import type { ReadResult, Transcript } from "../SessionStore.ts"
import { ensureDir, io, ioError, makeAppender, readTail, readTextIfExists } from "./fs.ts"
import { encodeRecord, parseWire } from "./wire.ts"

/** How much of an existing file is read to find the last `seq` when a transcript is opened. */
const TAIL_BYTES = 64 * 1024

interface TailState {
  readonly lastSeq: number
  /** The file ends without LF (a torn line): the next write must start on a fresh line. */
  readonly needsNewline: boolean
  readonly exists: boolean
}

/** Where the next `seq` starts, read from the end of the file (the whole file only if needed). */
const scanTail = async (path: string): Promise<TailState> => {
  const tail = await readTail(path, TAIL_BYTES)
  if (tail === undefined) return { lastSeq: 0, needsNewline: false, exists: false }
  const needsNewline = tail.size > 0 && !tail.text.endsWith("\n")
  let { lastSeq } = parseWire(tail.text, path, !tail.whole)
  if (lastSeq === 0 && !tail.whole) {
    lastSeq = parseWire((await readTextIfExists(path)) ?? "", path).lastSeq
  }
  return { lastSeq, needsNewline, exists: true }
}

/**
 * Opens (without creating) the transcript at `path`; the directory is created on first
 * write. The file handle kept open for appends is closed when `scope` (the store's) closes.
 */
export const makeFileTranscript = (path: string, scope: Scope.Scope): Effect.Effect<Transcript, SessionError> =>
  Effect.gen(function*() {
    const tail = yield* io("read", path, () => scanTail(path))
    const lock = yield* Semaphore.make(1)
    const appender = makeAppender(path)
    yield* Scope.addFinalizer(
      scope,
      lock.withPermit(io("close", path, appender.close)).pipe(Effect.catch(() => Effect.void))
    )
    let seq = tail.lastSeq
    let pending = ""
    let needsNewline = tail.needsNewline
    let exists = tail.exists
    /** The file's directory entry is known to be on disk (it existed, or a sync covered it). */
    let entrySynced = tail.exists
    /** Bytes were written since the last successful fsync. */
    let unsynced = false

    /**
     * Writes the buffer (and fsyncs when `durable`). Call only while holding `lock`.
     * Uninterruptible: once the buffer is taken, the write must finish or put it back.
     */
    const writePending = (durable: boolean): Effect.Effect<void, SessionError> =>
      Effect.suspend(() => {
        if (pending === "" && !(durable && unsynced)) return Effect.void
        const chunk = (needsNewline && pending !== "" ? "\n" : "") + pending
        const syncEntry = !entrySynced
        pending = ""
        const makeDir = !exists
          ? io("create the directory of", path, () => ensureDir(dirname(path)))
          : Effect.void
        return makeDir.pipe(
          Effect.andThen(io("append to", path, () => appender.append(chunk, durable, syncEntry))),
          Effect.tapError(() =>
            Effect.sync(() => {
              // Nothing, or only a torn line, reached the file: keep the events for a retry.
              pending = chunk + pending
              needsNewline = true
            })
          ),
          Effect.flatMap((outcome) => {
            exists = true
            if (chunk !== "") needsNewline = false
            unsynced = !durable || outcome.syncError !== undefined
            if (!unsynced) entrySynced = true
            return outcome.syncError === undefined
              ? Effect.void
              : Effect.fail(ioError("fsync", path, outcome.syncError))
          })
        )
      }).pipe(Effect.uninterruptible)

    const append = (event: AgentEvent): Effect.Effect<void, SessionError> =>
      isEphemeral(event)
        ? Effect.void
        : Effect.clockWith((clock) => {
          seq += 1
          pending += encodeRecord(event, seq, new Date(clock.currentTimeMillisUnsafe()).toISOString())
          return lock.withPermit(writePending(false))
        })

    const read: Effect.Effect<ReadResult, SessionError> = lock.withPermit(
      writePending(false).pipe(
        Effect.andThen(io("read", path, () => readTextIfExists(path))),
        Effect.map((text) => parseWire(text ?? "", path))
      )
    ).pipe(
      Effect.tap(({ warnings }) => Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true })),
      Effect.map(({ records, warnings }): ReadResult => ({ records, warnings }))
    )

    return {
      location: path,
      append,
      sync: lock.withPermit(writePending(true)),
      read
    } satisfies Transcript
  })
