import { Readable, Writable } from "node:stream"
import { Cause, Effect, Exit, Fiber, Pull, Queue, type Scope, Stream } from "effect"
import type { ChildProcessHandle } from "./ProcessLauncher.ts"

/** A byte stream pair in web-stream form, the transport protocol SDKs (ACP) take. */
export interface WebStdio {
  /** What the peer writes (its stdout). */
  readonly readable: ReadableStream<Uint8Array>
  /** What we send to the peer (its stdin). */
  readonly writable: WritableStream<Uint8Array>
}

/**
 * Web streams over a peer's stdin/stdout that never destroy the Node streams with an error.
 * `Readable.toWeb`/`Writable.toWeb` cancel the Node streams with an error when the protocol
 * connection closes, and execa then reports the child as failed ("Command failed with exit
 * code 0"); see STACK.md pitfall 11. Here closing only ends stdin and stops reading stdout.
 *
 * For our own process serving a protocol on stdio, the peer's stdin is our stdout:
 * `webStdio(process.stdout, process.stdin)`. For a child, use {@link childWebStdio}.
 */
export const webStdio = (stdin: Writable, stdout: Readable): WebStdio => {
  let done = false
  const detach: Array<() => void> = []
  const listen = <F extends (...args: Array<never>) => void>(event: string, f: F) => {
    const listener = f as unknown as (...args: Array<unknown>) => void
    stdout.on(event, listener)
    detach.push(() => stdout.off(event, listener))
  }
  const finish = () => {
    done = true
    for (const f of detach.splice(0)) f()
  }
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      listen("data", (chunk: Buffer | string) => {
        if (done) return
        controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        // Backpressure: stop the pipe while the consumer is behind; `pull` resumes it.
        if ((controller.desiredSize ?? 1) <= 0) stdout.pause()
      })
      const end = () => {
        if (done) return
        finish()
        controller.close()
      }
      listen("end", end)
      listen("close", end)
      listen("error", (error: unknown) => {
        if (done) return
        finish()
        controller.error(error)
      })
    },
    pull() {
      if (!done) stdout.resume()
    },
    cancel() {
      finish()
      // Keep draining so the peer never blocks on a full pipe while it shuts down.
      stdout.resume()
    }
  }, { highWaterMark: 64 })

  const closed = () => stdin.destroyed || stdin.writableEnded
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (closed()) return reject(new Error("the peer's stdin is closed"))
        stdin.write(chunk, (error) => (error ? reject(error) : resolve()))
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (closed()) return resolve()
        stdin.end(() => resolve())
      }),
    abort: () => {
      if (!closed()) stdin.end()
    }
  })
  return { readable, writable }
}

/** Chunks written ahead of the child's stdin: a writer waits beyond this (backpressure). */
const STDIN_QUEUE_CHUNKS = 16
/** At the scope's end, how long queued writes may take to reach a child that does not read. */
const STDIN_FLUSH_WAIT = "1 second"

/**
 * A child's stdio as Web streams, for protocol SDKs (ACP). Reading pulls the handle's stdout
 * (the child waits while the reader is behind); writing feeds its stdin sink, closing the
 * writable ends stdin (EOF). Cancelling the readable keeps draining stdout, so the child never
 * blocks on a full pipe while it shuts down. Scoped: the scope's end stops the writer.
 */
export const childWebStdio = (child: ChildProcessHandle): Effect.Effect<WebStdio, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const runPromise = Effect.runPromiseWith(context)
    const runFork = Effect.runForkWith(context)
    const scope = yield* Effect.scope
    const pull = yield* Stream.toPull(child.stdout)
    const readable = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        runPromise(Effect.exit(pull)).then((exit) => {
          if (Exit.isSuccess(exit)) for (const chunk of exit.value) controller.enqueue(chunk)
          else if (Pull.isDoneCause(exit.cause) || Cause.hasInterruptsOnly(exit.cause)) controller.close()
          else controller.error(Cause.squash(exit.cause))
        }),
      cancel: () => void runFork(Effect.forkIn(Stream.runDrain(child.stdout).pipe(Effect.ignore), scope))
    }, { highWaterMark: 0 })
    const queue = yield* Queue.bounded<Uint8Array, Cause.Done>(STDIN_QUEUE_CHUNKS)
    // A failed write (stdin closed) shuts the queue, so later writes are refused, not stuck.
    const writer = yield* Stream.run(Stream.fromQueue(queue), child.stdin).pipe(
      Effect.ignore,
      Effect.ensuring(Queue.shutdown(queue)),
      Effect.forkScoped
    )
    // Finalizers run last-first: this one, before the writer's interruption, lets what was
    // written reach the child and ends its stdin (EOF), bounded for a child that stopped reading.
    yield* Effect.addFinalizer(() => Queue.end(queue).pipe(Effect.andThen(Effect.timeoutOption(Fiber.await(writer), STDIN_FLUSH_WAIT))))
    const writable = new WritableStream<Uint8Array>({
      write: (chunk) =>
        runPromise(Queue.offer(queue, chunk)).then((accepted) => {
          if (!accepted) throw new Error("the peer's stdin is closed")
        }),
      close: () => runPromise(Queue.end(queue).pipe(Effect.andThen(Fiber.await(writer)), Effect.asVoid)),
      abort: () => runPromise(Effect.asVoid(Queue.end(queue)))
    })
    return { readable, writable }
  })

/**
 * A child's stdio as Node streams, for transports written against Node streams (the dsh SDK
 * client, the MCP SDK): {@link childWebStdio} seen through `Readable.fromWeb`/`Writable.fromWeb`.
 */
export const childNodeStdio = (child: ChildProcessHandle): Effect.Effect<{ readonly stdin: Writable; readonly stdout: Readable }, never, Scope.Scope> =>
  Effect.map(childWebStdio(child), (web) => ({
    // Node's typings of the web streams differ from the DOM ones; the objects are the same.
    stdin: Writable.fromWeb(web.writable as never),
    stdout: Readable.fromWeb(web.readable as never)
  }))
