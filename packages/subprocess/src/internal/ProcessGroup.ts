import { readdirSync, readFileSync } from "node:fs"
import { Effect } from "effect"

/**
 * Liveness of a process group (a child spawned with `killDescendants` leads its own group,
 * so its pid is the group id). A zombie is dead but still answers `kill(pid, 0)`: where PID 1
 * does not reap orphans (some containers), reparented grandchildren stay zombies forever, so
 * on Linux the group counts as gone once every member left in it is a zombie.
 */

const errnoCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** Linux only: whether `/proc` lists a non-zombie member of the group; undefined without `/proc`. */
const linuxGroupHasLiveMember = (pgid: number): boolean | undefined => {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return undefined
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8")
    } catch {
      continue // exited while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
  }
  return false
}

/** Whether any live process is left in the group led by `pgid`. */
export const groupAlive = (pgid: number): Effect.Effect<boolean> =>
  Effect.sync(() => {
    try {
      process.kill(-pgid, 0)
    } catch (error) {
      // EPERM: a member exists that we may not signal; count it as alive.
      return errnoCode(error) === "EPERM"
    }
    return linuxGroupHasLiveMember(pgid) ?? true
  })

/** Re-checks `condition` with a growing pause (5 ms up to 100 ms) until it holds. */
export const pollUntil = (condition: Effect.Effect<boolean>, pauseMs = 5): Effect.Effect<void> =>
  Effect.flatMap(condition, (holds) =>
    holds
      ? Effect.void
      : Effect.sleep(pauseMs).pipe(Effect.andThen(Effect.suspend(() => pollUntil(condition, Math.min(pauseMs * 2, 100))))))
