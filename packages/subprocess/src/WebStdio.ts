import { Readable, Writable } from "node:stream"
import { Effect, type Scope } from "effect"
import { childPorts } from "./internal/ChildPorts.ts"
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

const closedError = () => new Error("the peer's stdin is closed")

/**
 * A child's stdio as Web streams, for protocol SDKs (ACP). Reading pulls the handle's stdout
 * (the child waits while the reader is behind); writing feeds its stdin sink through a short
 * queue (backpressure), and closing the writable ends stdin (EOF). Cancelling the readable
 * keeps draining stdout, so the child never blocks on a full pipe while it shuts down.
 * Scoped: at the scope's end queued writes get a moment to reach the child, then the writer stops.
 */
export const childWebStdio = (child: ChildProcessHandle): Effect.Effect<WebStdio, never, Scope.Scope> =>
  Effect.map(childPorts(child), (ports) => ({
    readable: new ReadableStream<Uint8Array>({
      pull: (controller) =>
        ports.read().then((r) => {
          if (r._tag === "Chunks") for (const chunk of r.chunks) controller.enqueue(chunk)
          else if (r._tag === "End") controller.close()
          else controller.error(r.error)
        }),
      cancel: () => ports.drain()
    }, { highWaterMark: 0 }),
    writable: new WritableStream<Uint8Array>({
      write: async (chunk) => {
        if (!(await ports.write(chunk))) throw closedError()
      },
      close: () => ports.end(),
      abort: () => void ports.end()
    })
  }))

/**
 * A child's stdio as Node streams, for transports written against Node streams (the dsh SDK
 * client, the MCP SDK); the same behaviour as {@link childWebStdio}. Destroying either stream
 * ends stdin (EOF) and, for stdout, keeps draining.
 */
export const childNodeStdio = (child: ChildProcessHandle): Effect.Effect<{ readonly stdin: Writable; readonly stdout: Readable }, never, Scope.Scope> =>
  Effect.map(childPorts(child), (ports) => ({
    stdout: new Readable({
      // Node calls `read` again only after a push: one pull in flight at a time.
      read() {
        void ports.read().then((r) => {
          if (r._tag === "Chunks") for (const chunk of r.chunks) this.push(chunk)
          else if (r._tag === "End") this.push(null)
          else this.destroy(r.error instanceof Error ? r.error : new Error(String(r.error)))
        })
      },
      destroy(error, callback) {
        ports.drain()
        callback(error)
      }
    }),
    stdin: new Writable({
      write(chunk: Uint8Array, _encoding, callback) {
        const accepted = ports.write(chunk)
        if (accepted === true) return callback()
        if (accepted === false) return callback(closedError())
        void accepted.then((ok) => callback(ok ? undefined : closedError()))
      },
      final(callback) {
        void ports.end().then(() => callback())
      },
      destroy(error, callback) {
        void ports.end()
        callback(error)
      }
    })
  }))
