// The resident dsh of one build for one user: it keeps a spare process with every module
// loaded, hands it the next start a launcher brings, relays the launcher's signals to it, and
// tells the launcher how it ended. A launcher that dies is a spare killed with SIGKILL, so
// the spare's children go as they would with a killed dsh. Quits when idle.
import { type ChildProcess, fork } from "node:child_process"
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer, type Server, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { type Confinement, confinementDiffers } from "./Confinement.ts"
import { type LauncherMessage, onLines, send, type SpareMessage, type Start, type ToSpare } from "./Protocol.ts"

/** A start's first moments are left to it: its successor spare loads after it ends, or after this. */
const REFILL_AFTER_MS = 1000
/** Spares that die before they are ready, in a row, before the resident gives up. */
const MAX_FAILED_SPARES = 3

interface Spare {
  readonly child: ChildProcess
  socket?: string
  confinement?: Confinement
}

/** The resident: its place, and what it is doing (one per process; its callbacks update it). */
interface Resident {
  readonly spareEntry: string
  readonly dir: string
  readonly key: string
  readonly name: string
  readonly socketPath: string
  readonly marker: string
  readonly idleMs: number
  readonly server: Server
  loading: Spare | undefined
  ready: Spare | undefined
  running: number
  failedInARow: number
  closing: boolean
  idle: NodeJS.Timeout | undefined
  served: number
  idleSince: number
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} resident ${process.pid}: ${line}\n`)

const sendTo = (child: ChildProcess, message: ToSpare) => {
  if (child.connected) child.send(message)
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

const refill = (r: Resident) => {
  if (r.closing || r.loading !== undefined || r.ready !== undefined) return
  const spare: Spare = { child: fork(r.spareEntry, [r.dir, r.key], { stdio: ["ignore", "ignore", "inherit", "ipc"] }) }
  r.loading = spare
  spare.child.on("message", (message: SpareMessage) => {
    if ("ready" in message && r.loading === spare) {
      r.loading = undefined
      r.failedInARow = 0
      spare.socket = message.ready
      spare.confinement = message.confinement
      r.ready = spare
    }
  })
  spare.child.once("exit", (code, signal) => {
    if (spare.socket !== undefined) rmSync(spare.socket, { force: true })
    if (r.loading !== spare && r.ready !== spare) return
    if (r.loading === spare) r.loading = undefined
    if (r.ready === spare) r.ready = undefined
    log(`a spare ended before any start (code ${code}, signal ${signal})`)
    if (++r.failedInARow >= MAX_FAILED_SPARES) {
      // A fresh marker: no launcher starts a resident that would fail the same way, for a while.
      writeFileSync(r.marker, "")
      return close(r, "spares keep failing", true)
    }
    refill(r)
  })
}

const armIdle = (r: Resident) => {
  clearTimeout(r.idle)
  if (r.running === 0) r.idle = setTimeout(() => close(r, "idle"), r.idleMs)
}

const close = (r: Resident, why: string, failed = false) => {
  if (r.closing) return
  r.closing = true
  log(`closing: ${why}`)
  clearTimeout(r.idle)
  r.server.close()
  rmSync(r.socketPath, { force: true })
  // The log is for a resident that is still about, or one that failed; one that quit leaves none.
  if (!failed) rmSync(join(r.dir, `${r.key}.log`), { force: true })
  for (const spare of [r.loading, r.ready]) {
    spare?.child.kill("SIGKILL")
    if (spare?.socket !== undefined) rmSync(spare.socket, { force: true })
  }
  // Running starts keep this process (their launchers wait for the exit); then it ends.
  if (r.running === 0) process.exit(0)
}

/** Gives `start` to the ready spare: the launcher gets the spare's socket, or is told to run it itself. */
const take = (r: Resident, control: Socket, start: Start) => {
  const spare = r.ready
  if (spare === undefined || spare.socket === undefined || r.closing) {
    send(control, { busy: "no spare ready" })
    control.end()
    return
  }
  // A caller confined otherwise than the spare would have its start run without its limits
  // (or with more than it had): it runs in its own process, and the spare waits for another.
  const differs = confinementDiffers(start.confinement, spare.confinement)
  if (differs.length > 0) {
    send(control, { busy: `confined otherwise (${differs.join(", ")})` })
    control.end()
    return
  }
  r.ready = undefined
  r.running++
  r.served++
  clearTimeout(r.idle)
  handOver(control, spare.child, spare.socket, start, () => {
    r.running--
    r.idleSince = Date.now()
    if (r.closing && r.running === 0) process.exit(0)
    refill(r)
    armIdle(r)
  })
  setTimeout(() => refill(r), REFILL_AFTER_MS).unref()
}

/** Runs `start` in `child` for the launcher on `control`, relaying its signals; `ended` runs when the child exits. */
const handOver = (control: Socket, child: ChildProcess, socket: string, start: Start, ended: () => void) => {
  let accepted = false
  child.on("message", (message: SpareMessage) => {
    if ("accepted" in message) {
      accepted = true
      send(control, { spare: socket })
    } else if ("refused" in message) {
      send(control, { busy: message.refused })
    }
  })
  child.once("exit", (code, signal) => {
    // Before it accepted (it refused, or died first) the launcher still waits for an answer.
    if (!control.destroyed) {
      send(control, accepted ? { exit: { code, signal } } : { busy: "the spare ended before it took the start" })
      control.end()
    }
    ended()
  })
  // The launcher gone (killed, even with SIGKILL) is this start's dsh killed.
  control.once("close", () => {
    if (alive(child)) child.kill("SIGKILL")
  })
  onLines<LauncherMessage>(control, (message) => {
    if ("signal" in message) {
      if (alive(child)) child.kill(message.signal)
    } else if ("resize" in message) {
      sendTo(child, message)
    }
  })
  sendTo(child, { start })
}

const statusOf = (r: Resident) => ({
  pid: process.pid,
  name: r.name,
  build: `${dirname(r.spareEntry)}/`,
  ready: r.ready !== undefined,
  running: r.running,
  served: r.served,
  idleSeconds: r.running > 0 ? 0 : Math.floor((Date.now() - r.idleSince) / 1000),
  rssBytes: process.memoryUsage.rss(),
  spareRssBytes: r.ready?.child.pid === undefined ? undefined : rssOf(r.ready.child.pid)
})

/** One launcher's control connection: a status question, or a start. */
const onControl = (r: Resident, control: Socket) => {
  control.on("error", () => undefined)
  armIdle(r)
  const stop = onLines<LauncherMessage>(control, (message) => {
    if ("status" in message) {
      send(control, { status: statusOf(r) })
      control.end()
    }
    if (!("start" in message)) return
    stop()
    take(r, control, message.start)
  })
}

/** The socket is taken: by a live resident (which serves instead), or left by one that died (removed, then listened on). */
const onListenError = (r: Resident) => {
  let retried = false
  return (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || retried) {
      // The marker stays: no launcher starts another resident (to fail the same way) for a while.
      log(`cannot listen on ${r.socketPath}: ${error.message}`)
      process.exit(1)
    }
    retried = true
    const probe = connect(r.socketPath)
    probe.once("connect", () => {
      probe.destroy()
      process.exit(0)
    })
    probe.once("error", () => {
      log(`removed a stale socket ${r.socketPath} (no resident listened on it)`)
      rmSync(r.socketPath, { force: true })
      r.server.listen(r.socketPath)
    })
  }
}

const onListening = (r: Resident) => {
  chmodSync(r.socketPath, 0o600)
  rmSync(r.marker, { force: true })
  // Spare sockets of an earlier resident of this key that was killed (there is one per key).
  for (const f of readdirSync(r.dir)) if (f.startsWith(`${r.key}.`) && /^\d+\.sock$/.test(f.slice(r.key.length + 1))) rmSync(join(r.dir, f), { force: true })
  log(`listening on ${r.socketPath}`)
  refill(r)
  armIdle(r)
}

/**
 * Runs the resident in this process (the CLI's `warm-server.js` calls it), with the arguments
 * the launcher started it with: directory, key, idle seconds, name. `spareEntry` is the script
 * each spare runs (the CLI's `warm-spare.js`, which calls `runSpare`).
 */
export const serveResident = (spareEntry: string): void => {
  const [dir, key, idleArg, name = ""] = process.argv.slice(2) as [string, string, string | undefined, string | undefined]
  const r: Resident = {
    spareEntry,
    dir,
    key,
    name,
    socketPath: join(dir, `${key}.sock`),
    marker: join(dir, `${key}.starting`),
    idleMs: (Number(idleArg) > 0 ? Number(idleArg) : 600) * 1000,
    server: createServer(),
    loading: undefined,
    ready: undefined,
    running: 0,
    failedInARow: 0,
    closing: false,
    idle: undefined,
    served: 0,
    idleSince: Date.now()
  }
  r.server.on("connection", (control) => onControl(r, control))
  r.server.on("error", onListenError(r))
  r.server.on("listening", () => onListening(r))
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => close(r, signal))
  r.server.listen(r.socketPath)
}

/** A process's resident set size from `/proc/<pid>/statm` (pages), or undefined. */
const rssOf = (pid: number): number | undefined => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096
  } catch {
    return undefined
  }
}
