import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { Effect } from "effect"

export const tempDir = (): string => mkdtempSync(join(tmpdir(), "dsh-subprocess-"))

/**
 * Dead means ESRCH, or a zombie: PID 1 in some containers (this sandbox included) never reaps
 * orphans, so a killed grandchild can stay a zombie (dead, unreapable by us) for good.
 */
export const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return true
  }
}

/** Polls until every pid is gone (bounded), then reports the ones still alive. */
export const survivors = (pids: ReadonlyArray<number>, attempts = 200): Effect.Effect<Array<number>> =>
  Effect.gen(function*() {
    for (let i = 0; i < attempts; i++) {
      if (pids.every(isGone)) return []
      yield* Effect.sleep(10)
    }
    return pids.filter((pid) => !isGone(pid))
  })

export const readPids = (file: string): Array<number> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map(Number)

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
