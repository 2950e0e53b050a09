import { accessSync, constants, statSync } from "node:fs"
import type { Socket } from "node:net"
import { delimiter, isAbsolute, join, resolve } from "node:path"

/**
 * How a child is made to die with this process, even on `kill -9` (when no finalizer runs):
 *
 * - Linux, with util-linux's `setpriv`: the command runs as `setpriv --pdeathsig KILL -- cmd`.
 *   `setpriv` sets the parent-death signal and execs the command (same pid, nothing in
 *   between): the kernel SIGKILLs the child when the thread that spawned it dies. Node spawns
 *   children from its main thread (libuv's `uv_spawn` runs on the thread of the event loop
 *   that calls it; dsh never spawns from worker threads), so that thread's death is the
 *   process's death. The signal survives `execve` (not set-user-ID binaries).
 * - Everywhere but Windows, a watchdog: a tiny `sh` in its own process group whose stdin is a
 *   pipe from this process. It reads one line: a newline (the child was stopped normally)
 *   ends it quietly; end-of-file (this process died, so the kernel closed the pipe) makes it
 *   SIGKILL the child's whole process group — also the grandchildren pdeathsig does not reach.
 *   On macOS and the BSDs (no pdeathsig) it is the only mechanism.
 * - Windows: neither (process groups and signals do not exist there the same way).
 */

/** Whether a file is an executable regular file. */
const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** Where `command` resolves: a path (against `cwd`) or the first executable on `PATH`; undefined if none. */
export const resolveCommand = (command: string, path: string | undefined, cwd: string | undefined): string | undefined => {
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : resolve(cwd ?? process.cwd(), command)
    return executable(full) ? full : undefined
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue
    const full = join(isAbsolute(dir) ? dir : resolve(cwd ?? process.cwd(), dir), command)
    if (executable(full)) return full
  }
  return undefined
}

let setprivPath: string | null | undefined

/** `setpriv` on Linux (found once per process), else undefined. */
export const setpriv = (): string | undefined => {
  if (process.platform !== "linux") return undefined
  if (setprivPath === undefined) {
    setprivPath = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv"].find(executable) ??
      resolveCommand("setpriv", process.env.PATH, undefined) ?? null
  }
  return setprivPath ?? undefined
}

/** The command line that sets the parent-death signal, when this platform has one. */
export const withParentDeathSignal = (command: string, args: ReadonlyArray<string>): { readonly command: string; readonly args: ReadonlyArray<string> } | undefined => {
  const wrapper = setpriv()
  return wrapper === undefined ? undefined : { command: wrapper, args: ["--pdeathsig", "KILL", "--", command, ...args] }
}

/** A line on stdin: stop quietly; end-of-file: the parent died, kill the group given as $1. */
const WATCHDOG = "read _ || kill -s KILL -- -\"$1\" 2>/dev/null"

/**
 * Starts a watchdog for the process group `pgid` (see above). Returns how to dismiss it once
 * the group is gone; undefined where there is no watchdog (Windows, or it could not start).
 * It never keeps this process alive: its process and its pipe are unreferenced.
 */
export const startWatchdog = (pgid: number): (() => void) | undefined => {
  if (process.platform === "win32") return undefined
  try {
    // child_process (with net and dgram) loads on the first launch, not with this module.
    const dog = process.getBuiltinModule("node:child_process").spawn("/bin/sh", ["-c", WATCHDOG, "dsh-watchdog", String(pgid)], { detached: true, stdio: ["pipe", "ignore", "ignore"] })
    dog.on("error", () => undefined)
    const stdin = dog.stdin as Socket | null
    stdin?.on("error", () => undefined)
    dog.unref()
    stdin?.unref()
    return () => {
      stdin?.end("\n")
    }
  } catch {
    return undefined
  }
}
