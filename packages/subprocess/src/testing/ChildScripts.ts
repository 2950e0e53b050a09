import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Deferred, Effect, Fiber, Pull, type Scope, type Sink, Stream } from "effect"

/**
 * Reads a child's output stream until `text` has appeared (a readiness signal, e.g. `ready`)
 * and returns everything read so far; the rest stays for the next reader. It waits as long
 * as it takes: a child that never prints `text` hangs the test until its timeout (or returns
 * what it wrote if the stream ends first).
 */
export const readUntil = <E>(stream: Stream.Stream<Uint8Array, E>, text: string): Effect.Effect<string, E> =>
  Effect.scoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(stream)
    const decoder = new TextDecoder()
    let seen = ""
    while (!seen.includes(text)) {
      const chunks = yield* pull.pipe(Pull.catchDone(() => Effect.succeed(undefined)))
      if (chunks === undefined) break
      for (const chunk of chunks) seen += decoder.decode(chunk, { stream: true })
    }
    return seen
  }))

/** Writes `text` to a child's stdin and waits until it is written, without closing stdin. */
export const writeText = <E>(stdin: Sink.Sink<void, Uint8Array, never, E>, text: string): Effect.Effect<void, E> =>
  Effect.scoped(Effect.gen(function*() {
    // A sink ends stdin when its upstream ends: this upstream never ends. The sink pulls the
    // marker only after the text's write finished.
    const written = yield* Deferred.make<void>()
    const fiber = yield* Stream.make(new TextEncoder().encode(text)).pipe(
      Stream.concat(Stream.fromEffect(Deferred.succeed(written, undefined)).pipe(Stream.drain)),
      Stream.concat(Stream.never),
      Stream.run(stdin),
      Effect.forkScoped
    )
    yield* Effect.raceFirst(Deferred.await(written), Fiber.join(fiber))
  }))

/**
 * A bash script (run it as `bash -c SCRIPT bash PIDFILE`) that starts two background
 * `sleep 300`s, appends their pids to `$1`, prints `ready`, and then `wait`s, exits at once
 * (leaving orphaned grandchildren that still hold its pipes), or waits ignoring SIGTERM.
 */
export const grandchildScript = (mode: "wait" | "exit" | "ignore-term"): string =>
  [
    mode === "ignore-term" ? `trap "" TERM` : "",
    `sleep 300 & echo $! >> "$1"`,
    `sleep 300 & echo $! >> "$1"`,
    `echo ready`,
    mode === "exit" ? "exit 0" : "wait"
  ].filter((l) => l !== "").join("\n")

/** A path for a script's pid file, in a fresh temporary directory removed when the scope closes. */
export const tempPidFile: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "dsh-subprocess-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => join(dir, "pids")))
