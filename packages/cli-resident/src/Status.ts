// Asking residents how they are (`dsh resident status`), stopping them (`dsh resident stop`), and
// waiting until one has settled (a spare loaded, no start running), for tools that time what runs next.
import { readdirSync } from "node:fs"
import { connect } from "node:net"
import { onLines, type ResidentMessage, type ResidentStatus, send } from "./Protocol.ts"

/** The resident's status, or undefined when none listens at `socket`. */
export const residentStatus = (socket: string): Promise<ResidentStatus | undefined> =>
  new Promise((resolve) => {
    const control = connect(socket)
    control.once("error", () => resolve(undefined))
    control.once("close", () => resolve(undefined))
    control.once("connect", () => send(control, { status: true }))
    onLines<ResidentMessage>(control, (message) => {
      if ("status" in message) resolve(message.status)
      control.destroy()
    })
  })

/**
 * Resolves with the status once the resident is ready and idle, or with the last status (or
 * undefined) when `within` passes first. Polls every `every` milliseconds.
 */
export const residentSettled = async (socket: string, within = 10_000, every = 10): Promise<ResidentStatus | undefined> => {
  const until = Date.now() + within
  for (;;) {
    const status = await residentStatus(socket)
    if ((status?.ready === true && status.running === 0) || Date.now() >= until) return status
    await new Promise((r) => setTimeout(r, every))
  }
}

/** The residents listening in `dir` (their sockets are `<key>.sock`; a spare's is `<key>.<pid>.sock`). */
export const residentsIn = async (dir: string): Promise<Array<ResidentStatus & { readonly socket: string }>> => {
  let names: Array<string> = []
  try {
    names = readdirSync(dir).filter((f) => /^[a-z0-9]+\.sock$/.test(f))
  } catch {
    return []
  }
  const found = await Promise.all(names.map(async (f) => {
    const socket = `${dir}/${f}`
    const status = await residentStatus(socket)
    return status === undefined ? [] : [{ ...status, socket }]
  }))
  return found.flat()
}

/**
 * Stops the residents in `dir` that serve `build` (their `build` directory), with SIGTERM: each
 * lets the start it serves finish, then ends. Returns those it stopped.
 */
export const stopResidents = async (dir: string, build: string): Promise<Array<ResidentStatus & { readonly socket: string }>> => {
  const stopped: Array<ResidentStatus & { readonly socket: string }> = []
  for (const r of await residentsIn(dir)) {
    if (r.build !== build) continue
    try {
      process.kill(r.pid, "SIGTERM")
      stopped.push(r)
    } catch {
      // gone meanwhile
    }
  }
  return stopped
}

const mb = (bytes: number | undefined) => (bytes === undefined ? "?" : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

/** A resident in one line (`dsh resident status`); one started by an earlier dsh reports less ("?"). */
export const statusLine = (r: Partial<ResidentStatus> & Pick<ResidentStatus, "pid" | "build">): string =>
  `resident ${r.pid}${(r.name ?? "") === "" ? "" : ` (${r.name})`}  build ${r.build}  idle ${r.idleSeconds ?? "?"}s  ` +
  `memory ${mb(r.rssBytes)} (spare ${r.ready === true ? mb(r.spareRssBytes) : "loading"})  starts served ${r.served ?? "?"}` +
  `${(r.running ?? 0) > 0 ? `  running ${r.running}` : ""}${r.served === undefined ? "  (an earlier dsh: dsh resident stop ends it)" : ""}`
