import type { Readable, Writable } from "node:stream"
import { Effect, Queue, Scope } from "effect"
import { encodeFrame, type FrameEvent, FrameDecoder } from "../Framing.ts"
import { SdkError } from "../SdkError.ts"

/**
 * Frames over a Node stream pair, shared by the server and the client. Reading: bytes are cut
 * into frames as they arrive and queued for one consumer; the input is paused while the
 * consumer lags far behind, so a fast peer cannot fill our memory. Writing: whole frames, in
 * call order; once the output's buffer is full, senders wait for `drain` (backpressure).
 */

/** What the consumer takes next: a frame, an oversized-frame report, or the end of input. */
export type Incoming = FrameEvent | { readonly _tag: "End"; readonly detail: string }

export interface Transport {
  /** The next incoming item; after `End`, `End` again. */
  readonly next: Effect.Effect<Incoming>
  /**
   * Writes one message as a frame, waiting while the output is congested. Fails with
   * `FrameTooLarge` (nothing written) or `ConnectionClosed`.
   */
  readonly send: (message: unknown) => Effect.Effect<void, SdkError>
  /** Stops reading and ends the output (the peer sees EOF). Idempotent. */
  readonly close: Effect.Effect<void>
  /** Whether the output can still be written. */
  readonly isOpen: () => boolean
}

export interface TransportOptions {
  readonly input: Readable
  readonly output: Writable
  readonly maxFrameBytes: number
  /** End the output on close (default true); false leaves a shared stream such as process.stdout open. */
  readonly endOutput?: boolean | undefined
}

const HIGH_WATER_FRAMES = 1024
const LOW_WATER_FRAMES = 256

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Builds a transport whose listeners are removed when the scope closes. */
export const makeTransport = (options: TransportOptions): Effect.Effect<Transport, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { input, output, maxFrameBytes } = options
    const queue = yield* Queue.unbounded<Incoming>()
    const decoder = new FrameDecoder(maxFrameBytes)
    let ended: Incoming | undefined
    let closedError: SdkError | undefined
    let congested = false
    let paused = false
    const waiting: Array<() => void> = []

    const finishInput = (detail: string) => {
      if (ended !== undefined) return
      const partial = decoder.pendingBytes
      ended = { _tag: "End", detail: partial > 0 ? `${detail} (in the middle of a frame, ${partial} bytes)` : detail }
      Queue.offerUnsafe(queue, ended)
    }
    const onData = (chunk: Buffer | string) => {
      if (ended !== undefined) return
      for (const item of decoder.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) Queue.offerUnsafe(queue, item)
      if (!paused && Queue.sizeUnsafe(queue) > HIGH_WATER_FRAMES) {
        paused = true
        input.pause()
      }
    }
    const onEnd = () => finishInput("the peer closed the connection")
    const onInputError = (error: unknown) => finishInput(`reading failed: ${errorText(error)}`)

    /** Lets queued senders go, in order, until the output is congested again. */
    const release = () => {
      while (!congested && waiting.length > 0) waiting.shift()!()
    }
    const closeOutput = (detail: string) => {
      if (closedError !== undefined) return
      closedError = new SdkError({ reason: "ConnectionClosed", message: detail })
      congested = false
      release()
    }
    const onDrain = () => {
      congested = false
      release()
    }
    const onOutputClose = () => closeOutput("the connection is closed (the peer stopped reading)")
    const onOutputError = (error: unknown) => closeOutput(`writing failed: ${errorText(error)}`)

    input.on("data", onData)
    input.once("end", onEnd)
    input.once("close", onEnd)
    input.on("error", onInputError)
    output.on("drain", onDrain)
    output.once("close", onOutputClose)
    output.on("error", onOutputError)
    if (input.readableEnded || input.destroyed) onEnd()
    if (output.writableEnded || output.destroyed) onOutputClose()

    const close = Effect.sync(() => {
      finishInput("the connection was closed locally")
      if (closedError === undefined) {
        closeOutput("the connection was closed locally")
        if (options.endOutput !== false) output.end()
      }
    })

    yield* Effect.addFinalizer(() =>
      close.pipe(Effect.andThen(Effect.sync(() => {
        input.off("data", onData)
        input.off("end", onEnd)
        input.off("close", onEnd)
        output.off("drain", onDrain)
        output.off("close", onOutputClose)
        // The error listeners stay: a late EPIPE on a dead peer must not crash the process.
      })))
    )

    const next: Effect.Effect<Incoming> = Effect.suspend(() => {
      if (paused && Queue.sizeUnsafe(queue) < LOW_WATER_FRAMES) {
        paused = false
        input.resume()
      }
      if (ended !== undefined && Queue.sizeUnsafe(queue) === 0) return Effect.succeed(ended)
      return Queue.take(queue)
    })

    const send = (message: unknown): Effect.Effect<void, SdkError> =>
      Effect.suspend(() => {
        const frame = encodeFrame(message)
        const bytes = Buffer.byteLength(frame) - 1
        if (bytes > maxFrameBytes) {
          return Effect.fail(new SdkError({ reason: "FrameTooLarge", message: `a ${bytes}-byte frame exceeds the limit of ${maxFrameBytes} bytes; nothing was sent` }))
        }
        return Effect.callback<void, SdkError>((resume) => {
          let done = false
          const attempt = () => {
            if (done) return
            if (closedError !== undefined) {
              done = true
              return resume(Effect.fail(closedError))
            }
            if (congested) return void waiting.push(attempt)
            done = true
            if (output.write(frame)) return resume(Effect.void)
            // Written, but the buffer is full: this sender (and everyone after it) waits for drain.
            congested = true
            waiting.push(() => resume(Effect.void))
          }
          attempt()
          return Effect.sync(() => {
            const i = waiting.indexOf(attempt)
            if (i >= 0) waiting.splice(i, 1)
            done = true
          })
        })
      })

    return { next, send, close, isOpen: () => closedError === undefined } satisfies Transport
  })
