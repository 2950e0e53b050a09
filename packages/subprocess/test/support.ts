import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { Effect } from "effect"

export const tempDir = (): string => mkdtempSync(join(tmpdir(), "dsh-subprocess-"))

/** Resolves once `text` has appeared on the stream (the child's readiness signal). */
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

/** Starts two background sleeps, records their pids, then either waits or exits at once. */
export const grandchildScript = (mode: "wait" | "exit" | "ignore-term"): string =>
  [
    mode === "ignore-term" ? `trap "" TERM` : "",
    `sleep 300 & echo $! >> "$1"`,
    `sleep 300 & echo $! >> "$1"`,
    `echo ready`,
    mode === "exit" ? "exit 0" : "wait"
  ].filter((l) => l !== "").join("\n")
