import { readdirSync, readlinkSync } from "node:fs"

/**
 * The files this process has open under `dir` (Linux: `/proc/self/fd`; elsewhere none): what a
 * test of a long-lived host checks to see that it lets finished sessions' files go, or that a
 * store keeps to its budget of open transcripts.
 */
export const under = (dir: string): ReadonlyArray<string> => {
  let fds: Array<string>
  try {
    fds = readdirSync("/proc/self/fd")
  } catch {
    return []
  }
  return fds.flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      return target.startsWith(dir) ? [target] : []
    } catch {
      return []
    }
  })
}
