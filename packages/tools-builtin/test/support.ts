import { mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ToolMessage } from "@dsh/core"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { makeToolbox, type Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { makeBuiltinTools } from "../src/index.ts"

/** A fresh real directory (realpath, so messages compare equal on systems with a symlinked tmp). */
export const tempDir = (): string => realpathSync(mkdtempSync(join(tmpdir(), "dsh-tools-")))

export const toolbox: Effect.Effect<Toolbox> = makeBuiltinTools.pipe(
  Effect.map((tools) => makeToolbox({ tools })),
  Effect.provide(LocalProcessLauncher.layer({ killGrace: "1 second" }))
)

let nextId = 0

/** Calls a tool the way the turn loop does: raw JSON arguments, validation included. */
export const call = (cwd: string, name: string, args: unknown): Effect.Effect<ToolMessage> =>
  Effect.flatMap(toolbox, (box) =>
    box.execute({ id: `call-${++nextId}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) }, { cwd, agent: "main" }))

/** Dead means ESRCH, or a zombie (PID 1 here never reaps orphans, so dead ones can linger). */
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
