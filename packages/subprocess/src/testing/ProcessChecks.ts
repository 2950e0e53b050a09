import { readFileSync } from "node:fs"
import { Effect } from "effect"

/**
 * Whether a process is gone: `kill(pid, 0)` fails with ESRCH, or the process is a zombie.
 *
 * A zombie counts as gone because it is dead: where PID 1 never reaps orphans (some
 * containers, this sandbox included), a killed grandchild can stay a zombie for good, still
 * answering `kill(pid, 0)`, and nobody but its (long gone) parent could ever reap it. On Linux
 * the state is read from `/proc/<pid>/stat`; a pid whose entry vanished meanwhile is gone too.
 * EPERM (the process exists but is not ours) is not gone.
 */
export const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (in parentheses) may contain spaces or ")"; the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return true
  }
}

/**
 * Polls (every 10 ms, at most `attempts` times) until every pid is gone, then returns the ones
 * still alive — `[]` when the whole tree is gone. Bounded polling rather than one check, because
 * killing a process and its disappearing are not simultaneous; returning the survivors (rather
 * than a boolean) makes a failed assertion say which processes outlived the test.
 */
export const survivors = (pids: ReadonlyArray<number>, attempts = 200): Effect.Effect<Array<number>> =>
  Effect.gen(function*() {
    for (let i = 0; i < attempts; i++) {
      if (pids.every(isGone)) return []
      yield* Effect.sleep(10)
    }
    return pids.filter((pid) => !isGone(pid))
  })

/**
 * The pids in a file, one per line (blank lines skipped): how a script reports the processes
 * it started (`sleep 300 & echo $! >> pids`), so a check can find grandchildren that are no
 * longer attached to anything. A missing file throws: a script that never wrote its pids is a
 * failure, not an empty tree.
 */
export const readPids = (file: string): Array<number> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map(Number)

/**
 * Whether `pid` is the launcher's own parent-death watchdog (a `sh` named `dsh-watchdog`, one
 * per running child, gone once the child is stopped): tests that count a process's children
 * leave it out. Linux only (reads `/proc/<pid>/cmdline`); false elsewhere.
 */
export const isWatchdog = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("dsh-watchdog")
  } catch {
    return false
  }
}
