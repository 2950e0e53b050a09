import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { Effect, type Scope } from "effect"

/**
 * Waits until `text` has appeared on the stream (a child's readiness signal, e.g. `ready`)
 * and returns everything read so far; the stream is paused afterwards. It waits as long as it
 * takes: a child that never prints `text` hangs the test until its timeout.
 */
export const readUntil = (stream: Readable, text: string): Effect.Effect<string> =>
  Effect.callback<string>((resume) => {
    let seen = ""
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      if (seen.includes(text)) {
        stream.off("data", onData)
        stream.pause()
        resume(Effect.succeed(seen))
      }
    }
    stream.on("data", onData)
    return Effect.sync(() => stream.off("data", onData))
  })

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
