// The resident dsh of one build for one user: it keeps a spare process with every module
// loaded, hands it the next start a launcher brings, relays the launcher's signals to it, and
// tells the launcher how it ended. A launcher that dies is a spare killed with SIGKILL, so
// the spare's children go as they would with a killed dsh. Quits when idle.
import { type ChildProcess, fork } from "node:child_process"
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { type Confinement, confinementDiffers } from "./Confinement.ts"
import { type LauncherMessage, onLines, send, type SpareMessage, type Start, type ToSpare } from "./Protocol.ts"

/**
 * Runs the resident in this process (the CLI's `warm-server.js` calls it), with the arguments
 * the launcher started it with: directory, key, idle seconds, name. `spareEntry` is the script
 * each spare runs (the CLI's `warm-spare.js`, which calls `runSpare`).
 */
export const serveResident = (spareEntry: string): void => {
  const [dir, key, idleArg, name = ""] = process.argv.slice(2) as [string, string, string | undefined, string | undefined]
  const socketPath = join(dir, `${key}.sock`)
  const marker = join(dir, `${key}.starting`)
  const IDLE_MS = (Number(idleArg) > 0 ? Number(idleArg) : 600) * 1000
  /** A start's first moments are left to it: its successor spare loads after it ends, or after this. */
  const REFILL_AFTER_MS = 1000
  /** Spares that die before they are ready, in a row, before the resident gives up. */
  const MAX_FAILED_SPARES = 3

  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} resident ${process.pid}: ${line}\n`)

  interface Spare {
    readonly child: ChildProcess
    socket?: string
    confinement?: Confinement
  }
  let loading: Spare | undefined
  let ready: Spare | undefined
  let running = 0
  let failedInARow = 0
  let closing = false
  let idle: NodeJS.Timeout | undefined
  let served = 0
  let idleSince = Date.now()

  const sendTo = (child: ChildProcess, message: ToSpare) => {
    if (child.connected) child.send(message)
  }

  const refill = () => {
    if (closing || loading !== undefined || ready !== undefined) return
    const spare: Spare = { child: fork(spareEntry, [dir, key], { stdio: ["ignore", "ignore", "inherit", "ipc"] }) }
    loading = spare
    spare.child.on("message", (message: SpareMessage) => {
      if ("ready" in message && loading === spare) {
        loading = undefined
        failedInARow = 0
        spare.socket = message.ready
        spare.confinement = message.confinement
        ready = spare
      }
    })
    spare.child.once("exit", (code, signal) => {
      if (spare.socket !== undefined) rmSync(spare.socket, { force: true })
      if (loading !== spare && ready !== spare) return
      if (loading === spare) loading = undefined
      if (ready === spare) ready = undefined
      log(`a spare ended before any start (code ${code}, signal ${signal})`)
      if (++failedInARow >= MAX_FAILED_SPARES) {
        // A fresh marker: no launcher starts a resident that would fail the same way, for a while.
        writeFileSync(marker, "")
        return close("spares keep failing", true)
      }
      refill()
    })
  }

  const armIdle = () => {
    clearTimeout(idle)
    if (running === 0) idle = setTimeout(() => close("idle"), IDLE_MS)
  }

  const close = (why: string, failed = false) => {
    if (closing) return
    closing = true
    log(`closing: ${why}`)
    clearTimeout(idle)
    server.close()
    rmSync(socketPath, { force: true })
    // The log is for a resident that is still about, or one that failed; one that quit leaves none.
    if (!failed) rmSync(join(dir, `${key}.log`), { force: true })
    for (const spare of [loading, ready]) {
      spare?.child.kill("SIGKILL")
      if (spare?.socket !== undefined) rmSync(spare.socket, { force: true })
    }
    // Running starts keep this process (their launchers wait for the exit); then it ends.
    if (running === 0) process.exit(0)
  }

  /** Gives `start` to the ready spare: the launcher gets the spare's socket, or is told to run it itself. */
  const take = (control: Socket, start: Start) => {
    const spare = ready
    if (spare === undefined || spare.socket === undefined || closing) {
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
    ready = undefined
    running++
    served++
    clearTimeout(idle)
    const { child } = spare
    let accepted = false
    child.on("message", (message: SpareMessage) => {
      if ("accepted" in message) {
        accepted = true
        send(control, { spare: spare.socket! })
      } else if ("refused" in message) {
        send(control, { busy: message.refused })
      }
    })
    child.once("exit", (code, signal) => {
      running--
      idleSince = Date.now()
      // Before it accepted (it refused, or died first) the launcher still waits for an answer.
      if (!control.destroyed) {
        send(control, accepted ? { exit: { code, signal } } : { busy: "the spare ended before it took the start" })
        control.end()
      }
      if (closing && running === 0) process.exit(0)
      refill()
      armIdle()
    })
    // The launcher gone (killed, even with SIGKILL) is this start's dsh killed.
    control.once("close", () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
    onLines<LauncherMessage>(control, (message) => {
      if ("signal" in message) {
        if (child.exitCode === null && child.signalCode === null) child.kill(message.signal)
      } else if ("resize" in message) {
        sendTo(child, message)
      }
    })
    sendTo(child, { start })
    setTimeout(refill, REFILL_AFTER_MS).unref()
  }

  const server = createServer((control) => {
    control.on("error", () => undefined)
    armIdle()
    const stop = onLines<LauncherMessage>(control, (message) => {
      if ("status" in message) {
        send(control, {
          status: {
            pid: process.pid,
            name,
            build: `${dirname(spareEntry)}/`,
            ready: ready !== undefined,
            running,
            served,
            idleSeconds: running > 0 ? 0 : Math.floor((Date.now() - idleSince) / 1000),
            rssBytes: process.memoryUsage.rss(),
            spareRssBytes: ready?.child.pid === undefined ? undefined : rssOf(ready.child.pid)
          }
        })
        control.end()
      }
      if (!("start" in message)) return
      stop()
      take(control, message.start)
    })
  })

  let retried = false
  server.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || retried) {
      // The marker stays: no launcher starts another resident (to fail the same way) for a while.
      log(`cannot listen on ${socketPath}: ${error.message}`)
      process.exit(1)
    }
    retried = true
    // A socket left by a resident that died: remove it and listen; a live one serves instead.
    const probe = connect(socketPath)
    probe.once("connect", () => {
      probe.destroy()
      process.exit(0)
    })
    probe.once("error", () => {
      log(`removed a stale socket ${socketPath} (no resident listened on it)`)
      rmSync(socketPath, { force: true })
      server.listen(socketPath)
    })
  })

  server.on("listening", () => {
    chmodSync(socketPath, 0o600)
    rmSync(marker, { force: true })
    // Spare sockets of an earlier resident of this key that was killed (there is one per key).
    for (const f of readdirSync(dir)) if (f.startsWith(`${key}.`) && /^\d+\.sock$/.test(f.slice(key.length + 1))) rmSync(join(dir, f), { force: true })
    log(`listening on ${socketPath}`)
    refill()
    armIdle()
  })

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => close(signal))
  server.listen(socketPath)
}

/** A process's resident set size from `/proc/<pid>/statm` (pages), or undefined. */
const rssOf = (pid: number): number | undefined => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096
  } catch {
    return undefined
  }
}
