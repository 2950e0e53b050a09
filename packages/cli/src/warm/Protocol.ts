// The messages between a launcher, the resident and a spare: JSON lines on the launcher's
// control connection, Node's IPC channel between the resident and its spares.
import type { Socket } from "node:net"

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
}

export type SpareMessage = { readonly ready: string } | { readonly accepted: true } | { readonly refused: string }
export type ToSpare = { readonly start: Start } | Extract<LauncherMessage, { resize: unknown }>

export const send = (socket: Socket, message: LauncherMessage | ResidentMessage): boolean =>
  socket.write(`${JSON.stringify(message)}\n`)

/**
 * Calls `onMessage` for each JSON line read; a line that is not JSON ends the connection.
 * Returns what stops listening (the rest of the stream is then someone else's).
 */
export const onLines = <M>(socket: Socket, onMessage: (message: M) => void): () => void => {
  let buffered = ""
  socket.setEncoding("utf8")
  const listener = (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf("\n")
    while (newline >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      let message: M
      try {
        message = JSON.parse(line) as M
      } catch {
        socket.destroy()
        return
      }
      onMessage(message)
      newline = buffered.indexOf("\n")
    }
  }
  socket.on("data", listener)
  return () => socket.off("data", listener)
}
