/**
 * A TCP proxy in front of a PostgreSQL server, for the faults a network makes:
 * `cutAfterInsert()` arms it so that the next `INSERT` the server completes (its CommandComplete
 * and the ReadyForQuery after it: the row is committed) is not passed on, and the client's
 * connection is dropped instead, as a cut right after a commit; `blackhole()` makes it swallow
 * everything clients send from then on, as a server host that vanished without a FIN or RST
 * (new connections are accepted and swallowed too, so a check on a fresh connection gets no
 * answer either); `dropClients()` ends every client's connection while keeping its server side
 * open, as a partition after which the client gave up and the server has not noticed (its
 * backends, and the locks they hold, live on).
 */
import { connect, createServer, type Socket } from "node:net"

export interface FaultProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number
  readonly cutAfterInsert: () => void
  readonly blackhole: () => void
  readonly dropClients: () => void
  /** How many connections `cutAfterInsert` has cut. */
  readonly cuts: () => number
  /** Ends every connection and stops listening. */
  readonly close: () => void
}

/** ReadyForQuery: 'Z', length 5. */
const READY = Buffer.from([0x5a, 0, 0, 0, 5])

/** A proxy on a free port of 127.0.0.1 to the server on `port` there. */
export const start = (port: number): Promise<FaultProxy> =>
  new Promise((resolve) => {
    const sockets = new Set<Socket>()
    const clients = new Set<Socket>()
    /** Clients dropped by `dropClients`: their server side stays open. */
    const dropped = new WeakSet<Socket>()
    let armed = false
    let silent = false
    let cuts = 0
    const server = createServer((client) => {
      const upstream = connect(port, "127.0.0.1")
      sockets.add(client).add(upstream)
      clients.add(client)
      client.on("error", () => undefined)
      upstream.on("error", () => undefined)
      client.on("close", () => void (dropped.has(client) || upstream.destroy()))
      upstream.on("close", () => {
        clients.delete(client)
        client.destroy()
      })
      client.on("data", (d: Buffer) => void (silent || upstream.write(d)))
      let held: Buffer | undefined
      upstream.on("data", (d: Buffer) => {
        if (held === undefined && armed) {
          const at = d.indexOf("INSERT 0 ")
          if (at >= 0) held = d.subarray(at)
        } else if (held !== undefined) held = Buffer.concat([held, d])
        if (held === undefined) return void client.write(d)
        if (held.indexOf(READY) >= 0) {
          armed = false
          cuts++
          held = undefined
          client.destroy()
          upstream.destroy()
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        cutAfterInsert: () => void (armed = true),
        blackhole: () => void (silent = true),
        dropClients: () => {
          for (const c of clients) {
            dropped.add(c)
            c.destroy()
          }
          clients.clear()
        },
        cuts: () => cuts,
        close: () => {
          for (const s of sockets) s.destroy()
          server.close()
        }
      })
    })
  })
