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
  /** Whether the client may start TLS on its connections (the URL's `sslmode` is other than `disable`). */
  readonly tls: boolean
}

/** `SSLRequest`: length 8, code 80877103. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])
const MAX_RECHECK_MILLIS = 60_000

/** Whether the client may start TLS for `url`: its `sslmode` is set and is not `disable`, as the client reads it. */
export const mayUseTls = (url: string): boolean => {
  try {
    const mode = new URL(url).searchParams.get("sslmode")
    return mode !== null && mode !== "disable"
  } catch {
    return true
  }
}

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
    // A check alone never keeps the process running.
    timer.unref()
    socket.unref()
    socket.once("connect", () => socket.write(SSL_REQUEST))
    socket.once("data", () => finish(true))
    socket.once("error", () => finish(false))
    socket.once("close", () => finish(false))
  })

interface Watch {
  /** `connection`'s socket reached the server: a check for it goes to that address, with no name to resolve. */
  readonly reached: (connection: Duplex, socket: Net.Socket) => void
  readonly wrote: (connection: Duplex) => void
  readonly heard: (connection: Duplex) => void
  readonly closed: (connection: Duplex) => void
}

/**
 * `socket` itself, telling `watch` what passes: its `write` wrapped and a `data` listener beside
 * the client's. No stream in between, so a statement costs what it did unwatched. Only for
 * connections without TLS: the client hands a TLS connection's socket to `tls.connect`, whose
 * native layer reads and writes the socket's handle without passing through either.
 */
const watchedInPlace = (socket: Net.Socket, watch: Watch): Duplex => {
  const write = socket.write
  socket.write = function(this: Net.Socket, ...args: Parameters<typeof write>) {
    watch.wrote(socket)
    return write.apply(this, args)
  } as typeof write
  socket.once("connect", () => watch.reached(socket, socket))
  socket.on("data", () => watch.heard(socket))
  socket.on("close", () => watch.closed(socket))
  return socket
}

/** `socket` behind a stream of its own that tells `watch` what passes: what TLS connections get. */
const watchedThrough = (socket: Net.Socket, watch: Watch): Duplex => {
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
  socket.once("connect", () => watch.reached(connection, socket))
  socket.on("data", (chunk: Buffer) => {
    watch.heard(connection)
    if (!connection.push(chunk)) socket.pause()
  })
  socket.on("end", () => connection.push(null))
  socket.on("error", (error) => connection.destroy(error))
  socket.on("close", () => connection.destroy())
  return connection
}

/** A connection waiting for an answer: when it began to, and when the server is checked for it. */
interface Waiting {
  due: number
  delay: number
}

/**
 * A `stream` factory for `PgClient`/`PgConnection`: every connection it opens shares one check of
 * the server, and one timer looks at the waiting connections (a timer per statement cost the
 * store a tenth of its appends).
 */
export const makeConnector = (options: LivenessOptions): (() => Duplex) => {
  const { address, keepAliveMillis, unansweredMillis, tls } = options
  const seconds = `${unansweredMillis / 1000} s`
  const waiting = new Map<Duplex, Waiting>()
  /** The last check got no answer, and no connection has heard from the server since. */
  let unanswered = false
  /** When that check ended: for as long again, a connection that starts to wait fails at once. */
  let unansweredAt = 0
  /** When a connection last heard from the server: an answer during a check is one to it. */
  let heardAt = 0
  /** The address each connection reached (an IP): its check skips the name lookup and goes to that very host. */
  const reached = new WeakMap<Duplex, Address>()
  let checking: Promise<boolean> | undefined
  let ticker: ReturnType<typeof setInterval> | undefined

  const silence = () => new Error(`no answer for ${seconds}, nor to a new connection within ${seconds} (the store's unansweredTimeout)`)
  const stillSilent = () => new Error(`no answer from the server, which a check found silent for ${seconds} (the store's unansweredTimeout)`)

  const check = (target: Address) =>
    checking ??= Promise.resolve(performance.now()).then((began) =>
      answers(target, unansweredMillis).then((fresh) => {
        checking = undefined
        const answered = fresh || heardAt >= began
        unanswered = !answered
        if (!answered) {
          unansweredAt = performance.now()
          for (const connection of [...waiting.keys()]) connection.destroy(silence())
        }
        return answered
      })
    )

  /** Checks the server for the connections due; an answer puts each off twice as long as before. */
  const tick = () => {
    if (waiting.size === 0) {
      clearInterval(ticker)
      ticker = undefined
      return
    }
    const now = performance.now()
    const due = [...waiting].filter(([, w]) => w.due <= now)
    if (due.length === 0) return
    // Not due again while the check runs.
    for (const [, w] of due) w.due = Number.POSITIVE_INFINITY
    // To the host the first of them reached (a name may resolve elsewhere by now).
    void check(reached.get(due[0]![0]) ?? address).then((answered) => {
      if (!answered) return
      const later = performance.now()
      for (const [connection, w] of due) {
        if (waiting.get(connection) !== w) continue
        w.delay = Math.min(w.delay * 2, MAX_RECHECK_MILLIS)
        w.due = later + w.delay
      }
    })
  }

  const watch: Watch = {
    reached: (connection, socket) => {
      if ("host" in address && socket.remoteAddress !== undefined && socket.remotePort !== undefined) {
        reached.set(connection, { host: socket.remoteAddress, port: socket.remotePort })
      }
    },
    wrote: (connection) => {
      if (waiting.has(connection) || connection.destroyed) return
      // The server was just found silent: the statements of a shutdown fail at once rather than a
      // check each, while one check (shared) looks again, so a server that is back ends this early.
      if (unanswered && performance.now() - unansweredAt < unansweredMillis) {
        void check(reached.get(connection) ?? address)
        setImmediate(() => connection.destroy(stillSilent()))
        return
      }
      waiting.set(connection, { due: performance.now() + (unanswered ? 0 : unansweredMillis), delay: unansweredMillis })
      if (ticker === undefined) {
        // A quarter of the bound: a check starts between 1 and 1.25 times it after the wait began.
        ticker = setInterval(tick, Math.max(1, Math.floor(unansweredMillis / 4)))
        // A wait alone never keeps the process running: its socket does, while it is open.
        ticker.unref()
      }
      if (unanswered) tick()
    },
    heard: (connection) => {
      unanswered = false
      heardAt = performance.now()
      waiting.delete(connection)
    },
    closed: (connection) => void waiting.delete(connection)
  }
  return () => (tls ? watchedThrough : watchedInPlace)(open(address, keepAliveMillis), watch)
}
