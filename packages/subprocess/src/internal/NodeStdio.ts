import type { Readable, Writable } from "node:stream"
import { Cause, Effect, Pull, Sink, Stream } from "effect"
import { SubprocessError } from "../SubprocessError.ts"

/**
 * The local launcher's Node pipes as Effect stdio. Internal: a handle exposes only the
 * `Stream`s and the `Sink`; `WebStdio.ts` adapts a handle back for protocol SDKs.
 */

export interface OutputPipeOptions {
  /** Bytes held before the pipe is paused (or, unread with `dropUnread`, the oldest dropped). */
  readonly bufferBytes: number
  /**
   * Until the first read, keep only the last `bufferBytes` instead of pausing the child: for
   * stderr, which most callers never read and whose tail must stay current.
   */
  readonly dropUnread: boolean
  /** Sees every chunk as it arrives, read or not (the stderr tail). */
  readonly onChunk?: ((chunk: Uint8Array) => void) | undefined
}

/**
 * A Node readable as a single-consumer byte stream. Chunks are buffered from the start, so
 * nothing is lost between spawn and the first read; past `bufferBytes` the readable is paused
 * (the child blocks on a full pipe) until the consumer catches up. A read error ends the
 * stream like EOF: the exit status, not the pipe, says how the child ended.
 */
export const outputStream = (readable: Readable | null, options: OutputPipeOptions): Stream.Stream<Uint8Array, SubprocessError> => {
  let chunks: Array<Uint8Array> = []
  let size = 0
  let ended = readable === null
  let reading = false
  let paused = false
  // Usually one reader waits; a second (a drain after a cancelled reader) must not strand the first.
  const waiters = new Set<() => void>()
  const notify = () => {
    for (const wake of [...waiters]) wake()
  }
  if (readable !== null) {
    readable.on("data", (chunk: Buffer) => {
      options.onChunk?.(chunk)
      chunks.push(chunk)
      size += chunk.length
      if (size >= options.bufferBytes) {
        if (options.dropUnread && !reading) {
          while (size - chunks[0]!.length >= options.bufferBytes && chunks.length > 1) size -= chunks.shift()!.length
        } else if (!paused) {
          paused = true
          readable.pause()
        }
      }
      notify()
    })
    const end = () => {
      ended = true
      notify()
    }
    readable.once("end", end)
    readable.once("close", end)
    readable.on("error", end)
  }
  const waitForData = Effect.callback<void>((resume) => {
    const wake = () => {
      waiters.delete(wake)
      resume(Effect.void)
    }
    waiters.add(wake)
    return Effect.sync(() => void waiters.delete(wake))
  })
  const pull: Pull.Pull<readonly [Uint8Array, ...Array<Uint8Array>], never, void> = Effect.suspend(() => {
    reading = true
    if (chunks.length > 0) {
      const out = chunks as [Uint8Array, ...Array<Uint8Array>]
      chunks = []
      size = 0
      if (paused) {
        paused = false
        readable?.resume()
      }
      return Effect.succeed(out)
    }
    if (ended) return Cause.done()
    return Effect.flatMap(waitForData, () => pull)
  })
  return Stream.fromPull(Effect.succeed(pull))
}

const stdinClosed = (command: string, detail: string) => new SubprocessError({ reason: "Io", command, detail })

const closed = (stdin: Writable) => stdin.destroyed || stdin.writableEnded

/** Writes chunks, waiting for `drain` when the pipe is full. */
const writeChunks = (stdin: Writable, chunks: ReadonlyArray<Uint8Array>, command: string): Effect.Effect<void, SubprocessError> =>
  Effect.callback<void, SubprocessError>((resume) => {
    if (closed(stdin)) return resume(Effect.fail(stdinClosed(command, "stdin is closed")))
    let ready = true
    for (const chunk of chunks) ready = stdin.write(chunk)
    if (ready) return resume(Effect.void)
    const cleanup = () => {
      stdin.off("drain", onDrain)
      stdin.off("close", onClose)
    }
    const onDrain = () => {
      cleanup()
      resume(Effect.void)
    }
    const onClose = () => {
      cleanup()
      resume(Effect.fail(stdinClosed(command, "stdin closed before the write finished")))
    }
    stdin.once("drain", onDrain)
    stdin.once("close", onClose)
    return Effect.sync(cleanup)
  })

/**
 * Ends stdin (EOF for the child) without waiting for the flush: a child that stopped reading
 * must not hold up whoever closes its input (the bytes still go out if it reads them).
 */
const endStdin = (stdin: Writable): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!closed(stdin)) stdin.end()
  })

/** A Node writable as a sink; each run writes its chunks and ends the writable when its upstream ends. */
export const stdinSink = (stdin: Writable | null, command: string): Sink.Sink<void, Uint8Array, never, SubprocessError> =>
  stdin === null
    ? Sink.fail(stdinClosed(command, "stdin is not connected (spawned with stdin: \"ignore\")"))
    : Sink.fromTransform((upstream) =>
      upstream.pipe(
        Effect.flatMap((chunks) => writeChunks(stdin, chunks, command)),
        Effect.forever({ disableYield: true }),
        Pull.catchDone(() => Effect.as(endStdin(stdin), [undefined] as const))
      )
    )
