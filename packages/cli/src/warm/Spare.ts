#!/usr/bin/env node
// A spare: a dsh process started ahead of time with every module a command needs already
// loaded. It takes exactly one start (the launcher's argv, cwd, environment and stdio) and
// then is that dsh, start to end: the same `Cli.ts` runs, in a process of its own.
import { rmSync } from "node:fs"
import { enableCompileCache } from "node:module"
import { createServer, type Socket } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Start, TerminalSize, ToSpare } from "./Protocol.ts"

enableCompileCache?.()
const [dir, key] = process.argv.slice(2) as [string, string]
const socketPath = join(dir, `${key}.${process.pid}.sock`)
let started = false
// Sockets arrive paused: nothing is read before dsh reads, and an idle one holds no process open.
const listener = createServer({ pauseOnConnect: true, allowHalfOpen: true })

// Until it has a start, the resident ending ends the spare; after, the launcher could no longer
// learn how the start ended nor stop it, so the start ends as a killed dsh would.
process.on("disconnect", () => {
  if (!started) process.exit(0)
  process.kill(process.pid, "SIGKILL")
})

// What the commands load on demand, loaded now: the modules evaluate once, here, before any start.
await Promise.all([
  import("../Dispatch.ts"),
  import("../CliError.ts"),
  import("../Runtime.ts"),
  import("../Host.ts"),
  import("../Store.ts"),
  import("../commands/run.ts"),
  import("../commands/acp.ts"),
  import("../commands/sdk.ts"),
  import("../commands/sessions.ts"),
  import("../commands/subagents.ts"),
  import("../commands/agents.ts"),
  import("@dsh/llm-scripted"),
  import("@dsh/llm-openai"),
  import("@dsh/llm-anthropic")
])
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
  listener.close()
  rmSync(socketPath, { force: true })
  for (const name of Object.keys(process.env)) delete process.env[name]
  Object.assign(process.env, start.env)
  process.umask(start.umask)
  process.argv = [process.execPath, fileURLToPath(new URL("./main.js", import.meta.url)), ...start.argv]
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
  void import("../Cli.ts")
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
listener.listen(socketPath, () => process.send?.({ ready: socketPath }))
