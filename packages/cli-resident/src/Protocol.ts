// The messages between a launcher, the resident and a spare: JSON lines on the launcher's
// control connection, Node's IPC channel between the resident and its spares.
import { LineFramer } from "@dsh/subprocess/LineFramer"
import type { Socket } from "node:net"
import type { Confinement } from "./Confinement.ts"

/** The size of a terminal the launcher writes to; `undefined` where it is no terminal. */
export interface TerminalSize {
  readonly columns: number
  readonly rows: number
}

/** Everything about the start a spare takes over: the launcher's process, as it was. */
export interface Start {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly umask: number
  readonly stdinIsTTY: boolean
  readonly stdout?: TerminalSize | undefined
  readonly stderr?: TerminalSize | undefined
  /** The launcher's confinement: a spare confined otherwise does not take the start. */
  readonly confinement: Confinement
}

export type LauncherMessage =
  | { readonly start: Start }
  | { readonly signal: NodeJS.Signals }
  | { readonly resize: { readonly stdout?: TerminalSize | undefined; readonly stderr?: TerminalSize | undefined } }
  /** How the resident is (for tools that wait until it has settled). */
  | { readonly status: true }

export type ResidentMessage =
  /** Connect stdin, stdout and stderr, in that order, to this socket. */
  | { readonly spare: string }
  /** No spare can take this start: run it in the launcher's own process. */
  | { readonly busy: string }
  | { readonly exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } }
  | { readonly status: ResidentStatus }

export interface ResidentStatus {
  /** The resident's process. */
  readonly pid: number
  /** Its name (`DSH_RESIDENT` of the start that started it; "" by default). */
  readonly name: string
  /** The build it runs (the CLI's `dist` directory). */
  readonly build: string
  /** A spare is loaded and waiting. */
  readonly ready: boolean
  /** Starts being served now. */
  readonly running: number
  /** Starts served since it started. */
  readonly served: number
  /** Seconds since the last start ended (or since it started); 0 while one runs. */
  readonly idleSeconds: number
  /** Resident set size of the resident and of its ready spare, in bytes. */
  readonly rssBytes: number
  readonly spareRssBytes?: number | undefined
}

export type SpareMessage = { readonly ready: string; readonly confinement: Confinement } | { readonly accepted: true } | { readonly refused: string }
export type ToSpare = { readonly start: Start } | Extract<LauncherMessage, { resize: unknown }>

export const send = (socket: Socket, message: LauncherMessage | ResidentMessage): boolean =>
  socket.write(`${JSON.stringify(message)}\n`)

/** The longest line either side accepts: a start carries the environment, never near this. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024

/**
 * Calls `onMessage` for each JSON line read; a line that is not JSON, or longer than
 * `MAX_LINE_BYTES`, ends the connection (a launcher then runs its start in its own process).
 * Returns what stops listening (the rest of the stream is then someone else's).
 */
export const onLines = <M>(socket: Socket, onMessage: (message: M) => void, maxBytes = MAX_LINE_BYTES): () => void => {
  const framer = new LineFramer(maxBytes)
  const listener = (chunk: Buffer) => {
    for (const event of framer.push(chunk)) {
      if (event._tag === "Oversized") return void socket.destroy()
      let message: M
      try {
        message = JSON.parse(event.text) as M
      } catch {
        return void socket.destroy()
      }
      onMessage(message)
      if (socket.destroyed) return
    }
  }
  socket.on("data", listener)
  return () => socket.off("data", listener)
}
