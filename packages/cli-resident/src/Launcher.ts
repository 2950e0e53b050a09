// The thin start of `dsh` in front of a resident: it hands its argv, cwd, environment and
// stdio to a spare process that has every module loaded already, relays signals, and exits
// as the spare did. Where no spare can take the start, it returns and dsh runs in this process.
import { closeSync, mkdirSync, openSync, rmSync, statSync, writeSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { confinement } from "./Confinement.ts"
import { dshHomeOf, residentSetting } from "./OptIn.ts"
import { nodeEnvironment, type Place, placeFor } from "./Place.ts"
import { onLines, type ResidentMessage, send, type Start, type TerminalSize } from "./Protocol.ts"

/** Signals a user or a parent sends to stop `dsh`: each reaches the spare as itself. */
const FORWARDED: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR2"]

/** A resident that never got to listen leaves its marker; after this long another may start. */
const STARTING_STALE_MS = 30_000

/**
 * A connected socket and a promise of its end (its peer's end of stream, or a failure),
 * watched from the moment it connects: an end that comes before anyone asks is not missed.
 */
interface Connection {
  readonly socket: Socket
  readonly ended: Promise<void>
}

const connectTo = (path: string): Promise<Connection | undefined> =>
  new Promise((resolve) => {
    const socket = connect({ path, allowHalfOpen: true })
    socket.once("connect", () => {
      socket.removeAllListeners("error")
      socket.on("error", () => undefined)
      // Half-open: the peer's end arrives as "end" (once read), a failure as "close".
      const ended = new Promise<void>((done) => {
        socket.once("end", done)
        socket.once("close", done)
      })
      resolve({ socket, ended })
    })
    socket.once("error", () => resolve(undefined))
  })

const sizeOf = (stream: NodeJS.WriteStream): TerminalSize | undefined =>
  stream.isTTY ? { columns: stream.columns, rows: stream.rows } : undefined

/**
 * Starts this build's resident in the background, once: the first launcher to create the
 * marker does; the resident removes it when it listens. This start runs in its own process.
 */
const startResident = (place: Place, server: string, name: string): void => {
  const marker = join(place.dir, `${place.key}.starting`)
  try {
    closeSync(openSync(marker, "wx", 0o600))
  } catch {
    try {
      if (Date.now() - statSync(marker).mtimeMs < STARTING_STALE_MS) return
      rmSync(marker, { force: true })
      closeSync(openSync(marker, "wx", 0o600))
    } catch {
      return
    }
  }
  try {
    const { spawn } = process.getBuiltinModule("node:child_process")
    const log = openSync(join(place.dir, `${place.key}.log`), "a", 0o600)
    const idle = process.env.DSH_RESIDENT_IDLE_SECONDS ?? ""
    spawn(process.execPath, [...process.execArgv, server, place.dir, place.key, idle, name], {
      detached: true,
      stdio: ["ignore", "ignore", log],
      env: nodeEnvironment(process.env),
      cwd: "/"
    }).unref()
    closeSync(log)
  } catch {
    rmSync(marker, { force: true })
  }
}

/**
 * The resident's messages, read from the moment of connecting: the answer to the start first,
 * then how the spare ended (which can come before the streams are all connected).
 */
const residentMessages = (control: Connection) => {
  const received: Array<ResidentMessage> = []
  let wake: () => void = () => undefined
  let closed = false
  onLines<ResidentMessage>(control.socket, (message) => {
    received.push(message)
    wake()
  })
  void control.ended.then(() => {
    closed = true
    wake()
  })
  /** The next message, or undefined once the connection is closed and all are taken. */
  const next = (): Promise<ResidentMessage | undefined> =>
    received.length > 0
      ? Promise.resolve(received.shift())
      : closed
      ? Promise.resolve(undefined)
      : new Promise<void>((r) => (wake = r)).then(next)
  return next
}

/** Writes what is left, then ends this process as the spare ended. */
const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
  let pending = 2
  const done = () => {
    if (--pending > 0) return
    if (signal !== null) {
      for (const s of [...FORWARDED, signal]) process.removeAllListeners(s)
      process.kill(process.pid, signal)
    }
    process.exit(code ?? 1)
  }
  process.stdout.write("", done)
  process.stderr.write("", done)
}

/** One warning line in `$DSH_HOME/logs/dsh.log` (the CLI's log, its JSON lines); never fails the start. */
const warn = (message: string): void => {
  try {
    const logs = join(dshHomeOf(process.env), "logs")
    mkdirSync(logs, { recursive: true, mode: 0o700 })
    const fd = openSync(join(logs, "dsh.log"), "a", 0o600)
    writeSync(fd, `${JSON.stringify({ level: 40, time: new Date().toISOString(), pid: process.pid, msg: `resident: ${message}; this start runs in its own process` })}\n`)
    closeSync(fd)
  } catch {
    // no log to write to: the start runs in its own process all the same
  }
}

/** Where a built CLI's resident runs from. */
export interface ResidentEntries {
  /** The CLI's entry (`dist/main.js`): its identity names the build a resident serves. */
  readonly entry: string
  /** The resident's server script (the CLI's `dist/warm-server.js`, which calls `serveResident`). */
  readonly server: string
}

/**
 * Runs this start in a warm spare when the user opted in (see `residentSetting`) and one takes
 * it; then it never returns (the process exits as the spare did). Returns when the resident is
 * off or none can take it (a differently confined caller, no spare ready), after asking for a
 * resident to be started for next time where there is none: the caller then runs the start itself.
 */
export const runInResident = async (entries: ResidentEntries): Promise<void> => {
  const setting = await residentSetting(process.env)
  // Elsewhere than Linux there is no /proc to compare confinement by: every start runs here.
  if (!setting.on || process.platform !== "linux") return
  const place = placeFor(entries.entry, process.env, setting.name)
  if ("problem" in place) return warn(place.problem)
  const control = await connectTo(place.socket)
  if (control === undefined) return startResident(place, entries.server, setting.name)
  let cwd: string
  try {
    cwd = process.cwd()
  } catch {
    // A working directory that is gone: dsh in this process says so, as it always did.
    control.socket.destroy()
    return
  }
  const next = residentMessages(control)
  const start: Start = {
    argv: process.argv.slice(2),
    cwd,
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    umask: process.umask(),
    stdinIsTTY: process.stdin.isTTY === true,
    stdout: sizeOf(process.stdout),
    stderr: sizeOf(process.stderr),
    confinement: confinement()
  }
  send(control.socket, { start })
  const answer = await next()
  const spare = answer !== undefined && "spare" in answer ? answer.spare : undefined
  // Nothing has run yet: without all three streams the spare is stopped and dsh runs here.
  const stdin = spare === undefined ? undefined : await connectTo(spare)
  const stdout = stdin === undefined ? undefined : await connectTo(spare!)
  const stderr = stdout === undefined ? undefined : await connectTo(spare!)
  if (stdin === undefined || stdout === undefined || stderr === undefined) {
    for (const c of [control, stdin, stdout, stderr]) c?.socket.destroy()
    return
  }
  relay(control.socket, stdin.socket, stdout.socket, stderr.socket)
  // The spare's end: its exit (or the resident gone), then whatever it wrote, all read.
  let exit: ResidentMessage | undefined
  do exit = await next()
  while (exit !== undefined && !("exit" in exit))
  await Promise.all([stdout.ended, stderr.ended])
  control.socket.destroy()
  if (exit === undefined) process.stderr.write("dsh: the resident dsh process went away\n")
  finish(exit?.exit.code ?? 1, exit?.exit.signal ?? null)
  // `finish` ends the process once the last output is written: this start never runs here too.
  await new Promise<never>(() => undefined)
}

/** Bytes both ways, and the signals and terminal sizes this process gets, to the spare. */
const relay = (control: Socket, stdin: Socket, stdout: Socket, stderr: Socket): void => {
  // The spare asks for stdin (one byte) when dsh first reads it: until then it is left unread,
  // as by a dsh that never reads its input.
  stdin.once("data", () => {
    process.stdin.on("error", () => stdin.end())
    process.stdin.pipe(stdin)
  })
  stdout.pipe(process.stdout, { end: false })
  stderr.pipe(process.stderr, { end: false })
  // A reader that went away (`dsh … | head -1`): the spare's next write fails as dsh's would.
  process.stdout.on("error", () => stdout.destroy())
  process.stderr.on("error", () => stderr.destroy())
  for (const signal of FORWARDED) process.on(signal, () => send(control, { signal }))
  const resized = () => send(control, { resize: { stdout: sizeOf(process.stdout), stderr: sizeOf(process.stderr) } })
  if (process.stdout.isTTY) process.stdout.on("resize", resized)
  if (process.stderr.isTTY) process.stderr.on("resize", resized)
}
