import type { Readable, Writable } from "node:stream"

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
 * For a child: `webStdio(child.stdin, child.stdout)`. For our own process serving a protocol
 * on stdio, the peer's stdin is our stdout: `webStdio(process.stdout, process.stdin)`.
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
