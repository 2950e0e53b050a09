// A spare: a dsh process started ahead of time with every module a command needs already
// loaded. It takes exactly one start (the launcher's argv, cwd, environment and stdio) and
// then is that dsh, start to end: the same `Cli.ts` runs, in a process of its own. Patches
// Node's private `socket._read` (stdin asked for on first read): opt-in code, kept here alone.
import { rmSync } from "node:fs"
import { enableCompileCache } from "node:module"
import { createServer, type Socket } from "node:net"
import { join } from "node:path"
import { confinement, confinementDiffers } from "./Confinement.ts"
import type { Start, TerminalSize, ToSpare } from "./Protocol.ts"

/** What a spare of a CLI loads ahead, runs for a start, and does when its resident goes away. */
export interface SpareOptions {
  /** The CLI's entry (`dist/main.js`): `process.argv[1]` of the start. */
  readonly entry: string
  /** Loads what the commands load on demand, so the modules evaluate once, before any start. */
  readonly preload: () => Promise<unknown>
  /** Runs the start (the CLI's `Cli.ts`), with process, argv, env and stdio already the launcher's. */
  readonly main: () => Promise<unknown>
  /**
   * The resident went away mid-start: the launcher can no longer learn how the start ends
   * nor forward signals. The CLI ends the start as a failed run (its output and summary still
   * reach the launcher, whose streams are connected directly); without it the spare is killed.
   */
  readonly onResidentLost?: (reason: string) => void
}

/** The reason a start fails with when its resident is killed under it. */
export const RESIDENT_LOST = "the resident dsh process went away"

/** Runs a spare in this process (the CLI's `warm-spare.js` calls it, started by the resident). */
export const runSpare = async (options: SpareOptions): Promise<void> => {
  enableCompileCache?.()
  const [dir, key] = process.argv.slice(2) as [string, string]
  const socketPath = join(dir, `${key}.${process.pid}.sock`)
  let started = false
  let begun = false
  // Sockets arrive paused: nothing is read before dsh reads, and an idle one holds no process open.
  const listener = createServer({ pauseOnConnect: true, allowHalfOpen: true })

  // Until a start has begun, the resident ending ends the spare (its launcher runs the start in its
  // own process); after, the start ends as a failed run.
  process.on("disconnect", () => {
    if (!begun) process.exit(0)
    if (options.onResidentLost === undefined) process.kill(process.pid, "SIGKILL")
    else options.onResidentLost(RESIDENT_LOST)
  })

  await options.preload()
  for (const builtin of ["node:http", "node:https", "node:zlib", "node:child_process"] as const) process.getBuiltinModule(builtin)

  /** stdin as Node makes it for a pipe: unread until dsh reads it, and no hold on the process while paused. */
  const asStdin = (socket: Socket, isTTY: boolean): Socket => {
    let asked = false
    const read = socket._read.bind(socket)
    socket._read = (size: number) => {
      // The launcher reads its own stdin only from now on (one byte asks for it).
      if (!asked) {
        asked = true
        socket.write(Buffer.of(1))
      }
      read(size)
    }
    socket.on("pause", () => process.nextTick(() => socket.readableFlowing !== true && socket.unref()))
    socket.on("resume", () => socket.ref())
    // Accepted paused, the socket would wait for an explicit resume(); a fresh stdin starts
    // flowing at its first "data" listener.
    ;(socket as { readableFlowing: boolean | null }).readableFlowing = null
    return Object.assign(socket, { isTTY })
  }

  const asOutput = (socket: Socket, size: TerminalSize | undefined): Socket =>
    size === undefined ? socket : Object.assign(socket, { isTTY: true, columns: size.columns, rows: size.rows })

  const setStream = (name: "stdin" | "stdout" | "stderr", stream: Socket) =>
    Object.defineProperty(process, name, { value: stream, configurable: true, enumerable: true, writable: true })

  const begin = (start: Start, [stdin, stdout, stderr]: ReadonlyArray<Socket>) => {
    begun = true
    listener.close()
    rmSync(socketPath, { force: true })
    for (const name of Object.keys(process.env)) delete process.env[name]
    Object.assign(process.env, start.env)
    process.umask(start.umask)
    process.argv = [process.execPath, options.entry, ...start.argv]
    // What `ps` shows for this process from now on (cut to the length of the spare's own command line).
    process.title = ["dsh", ...start.argv].join(" ")
    setStream("stdin", asStdin(stdin!, start.stdinIsTTY))
    setStream("stdout", asOutput(stdout!, start.stdout))
    setStream("stderr", asOutput(stderr!, start.stderr))
    for (const s of [stdout!, stderr!]) s.on("error", () => undefined)
    // Node prints an uncaught error to file descriptor 2 (the resident's log): the user sees it too.
    process.on("uncaughtExceptionMonitor", (error) => {
      stderr!.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    })
    process.channel?.unref()
    void options.main()
  }

  const resize = (message: Extract<ToSpare, { resize: unknown }>) => {
    for (const [name, size] of [["stdout", message.resize.stdout], ["stderr", message.resize.stderr]] as const) {
      const stream = process[name] as NodeJS.WriteStream
      if (size === undefined || !stream.isTTY) continue
      Object.assign(stream, { columns: size.columns, rows: size.rows })
      stream.emit("resize")
    }
  }

  const accept = (start: Start) => {
    if (started) return
    // Confined otherwise since it said it was ready (reniced, moved to another cgroup): this
    // spare takes no start; the resident answers the launcher "busy" and loads another.
    const differs = confinementDiffers(start.confinement, confinement())
    if (differs.length > 0) {
      process.send?.({ refused: `confined otherwise (${differs.join(", ")})` }, () => process.exit(0))
      return
    }
    started = true
    try {
      process.chdir(start.cwd)
    } catch (error) {
      // Exits once the answer is out (the resident answers the launcher "busy" either way).
      process.send?.({ refused: `cannot enter ${start.cwd}: ${(error as NodeJS.ErrnoException).code}` }, () => process.exit(0))
      return
    }
    // The launcher connects stdin, stdout and stderr in turn, each after the last is accepted.
    const streams: Array<Socket> = []
    listener.on("connection", (socket) => {
      streams.push(socket)
      if (streams.length === 3) begin(start, streams)
    })
    process.send?.({ accepted: true })
  }

  process.on("message", (message: ToSpare) => {
    if ("start" in message) accept(message.start)
    else if ("resize" in message) resize(message)
  })
  listener.listen(socketPath, () => process.send?.({ ready: socketPath, confinement: confinement() }))
}
