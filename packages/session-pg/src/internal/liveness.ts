/**
 * Connections that notice a server which stopped answering. TCP keepalive finds a vanished host
 * only while nothing sent is waiting for its acknowledgement, and nothing at all finds a path that
 * still acknowledges (a proxy, a NAT box) but no longer answers: a statement there waits forever.
 * So a connection that has waited `unansweredMillis` for the first byte of an answer has the
 * server checked: a fresh connection to the same address sends an SSLRequest, which PostgreSQL
 * answers with one byte before any login. No answer within `unansweredMillis` either, and every
 * connection still waiting is ended, which fails its statements; an answer means the statement is
 * slow, not lost, and it is checked again later (backing off to once a minute), so a slow
 * statement on a server that answers is never cut off. After a failed check a connection that
 * starts waiting is checked at once.
 *
 * "Waiting" is seen from the bytes alone (a write after the last byte read), so a pipelined
 * statement whose predecessor's answer arrived after it was sent is not watched until the
 * connection's next write; keepalive still ends it if the host vanished.
 */
import * as Net from "node:net"
import { Duplex } from "node:stream"

/** Where the server listens: a TCP address or a Unix socket. */
export type Address = { readonly host: string; readonly port: number } | { readonly path: string }

export interface LivenessOptions {
  readonly address: Address
  /** TCP keepalive's idle time (whole seconds, at least one), or undefined for none. */
  readonly keepAliveMillis: number | undefined
  /** How long a connection waits for an answer before the server is checked, and the check's bound. */
  readonly unansweredMillis: number
}

/** `SSLRequest`: length 8, code 80877103. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])
const MAX_RECHECK_MILLIS = 60_000

/** The server's address in a `postgres://` URL as the client reads it (`?host=`/`?port=` win; a host starting with `/` is a socket directory). */
export const addressOf = (url: string): Address | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : decodeURIComponent(parsed.hostname)
  const host = parsed.searchParams.get("host") ?? (hostname || "localhost")
  const port = Number(parsed.searchParams.get("port") ?? (parsed.port || 5432))
  if (host.includes(",") || !Number.isInteger(port)) return undefined
  return host.startsWith("/") ? { path: `${host}/.s.PGSQL.${port}` } : { host, port }
}

const open = (address: Address, keepAliveMillis: number | undefined): Net.Socket =>
  "path" in address
    ? Net.connect({ path: address.path })
    : Net.connect({ host: address.host, port: address.port, noDelay: true, ...(keepAliveMillis !== undefined && { keepAlive: true, keepAliveInitialDelay: keepAliveMillis }) })

/** Whether the server answers a fresh connection's SSLRequest within `millis`. */
const answers = (address: Address, millis: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = open(address, undefined)
    const finish = (answered: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answered)
    }
    const timer = setTimeout(() => finish(false), millis)
    socket.once("connect", () => socket.write(SSL_REQUEST))
    socket.once("data", () => finish(true))
    socket.once("error", () => finish(false))
    socket.once("close", () => finish(false))
  })

interface Watch {
  readonly wrote: (connection: Duplex) => void
  readonly heard: (connection: Duplex) => void
  readonly closed: (connection: Duplex) => void
}

/** `socket` as the client sees it, telling `watch` what passes. */
const watched = (socket: Net.Socket, watch: Watch): Duplex => {
  const connection: Duplex = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, encoding, callback) => {
      watch.wrote(connection)
      socket.write(chunk, encoding, callback)
    },
    final: (callback) => void socket.end(callback),
    destroy: (error, callback) => {
      watch.closed(connection)
      socket.destroy()
      callback(error)
    }
  })
  socket.on("data", (chunk: Buffer) => {
    watch.heard(connection)
    if (!connection.push(chunk)) socket.pause()
  })
  socket.on("end", () => connection.push(null))
  socket.on("error", (error) => connection.destroy(error))
  socket.on("close", () => connection.destroy())
  return connection
}

/** A `stream` factory for `PgClient`/`PgConnection`: every connection it opens shares one check of the server. */
export const makeConnector = (options: LivenessOptions): (() => Duplex) => {
  const { address, keepAliveMillis, unansweredMillis } = options
  const seconds = `${unansweredMillis / 1000} s`
  /** The connections waiting for an answer, each with the timer of its next check. */
  const waiting = new Map<Duplex, ReturnType<typeof setTimeout>>()
  /** The last check got no answer, and no connection has heard from the server since. */
  let unanswered = false
  let checking: Promise<boolean> | undefined

  const check = () =>
    checking ??= answers(address, unansweredMillis).then((answered) => {
      checking = undefined
      unanswered = !answered
      if (!answered) {
        const ended = [...waiting.keys()]
        for (const connection of ended) connection.destroy(new Error(`no answer for ${seconds}, nor to a new connection within ${seconds} (the store's unansweredTimeout)`))
      }
      return answered
    })

  const arm = (connection: Duplex, delay: number) => {
    const timer = setTimeout(() =>
      void check().then((answered) => {
        if (answered && waiting.get(connection) === timer) arm(connection, Math.min(Math.max(delay, unansweredMillis) * 2, MAX_RECHECK_MILLIS))
      }), delay)
    // A wait alone never keeps the process running: its socket does, while it is open.
    timer.unref()
    waiting.set(connection, timer)
  }

  const stop = (connection: Duplex) => {
    clearTimeout(waiting.get(connection))
    waiting.delete(connection)
  }

  const watch: Watch = {
    wrote: (connection) => void (waiting.has(connection) || arm(connection, unanswered ? 0 : unansweredMillis)),
    heard: (connection) => {
      unanswered = false
      stop(connection)
    },
    closed: stop
  }
  return () => watched(open(address, keepAliveMillis), watch)
}
