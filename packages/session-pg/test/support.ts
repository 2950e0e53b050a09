import { connect, createServer, type Socket } from "node:net"
import { PgClient } from "@effect/sql-pg"
import { Postgres } from "@dsh/testing-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { afterAll } from "vitest"
import { PgSessionStore } from "../src/index.ts"

/** This test file's server (one per file, started once), or undefined where PostgreSQL cannot run. */
export const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

/** A client of its own, as another process would have. */
export const clientOf = (url: string) => PgClient.make({ url: Redacted.make(url) }).pipe(Effect.provide(Reactivity.layer))

/** A store over a fresh client: call it twice for two "processes". */
export const storeAt = (url: string) => Effect.flatMap(clientOf(url), PgSessionStore.make)

/** A fresh, empty place to work: a schema of its own (a URL whose connections use it). */
export const freshSchema = Effect.promise(() => pg!.createSchema())

export const freshDatabase = Effect.promise(() => pg!.createDatabase())

/** One connection of its own (for a session-level advisory lock held by the test). */
export const singleClient = (url: string) => PgClient.makeClient({ url: Redacted.make(url) }).pipe(Effect.provide(Reactivity.layer))

/** Polls `check` (a state of the server or the store, never a timer) until it holds; fails after ~10 s. */
export const waitUntil = (what: string, check: Effect.Effect<boolean, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      if (yield* check) return
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.die(new Error(`never happened: ${what}`))
  })

/**
 * A TCP proxy in front of the server. `cutAfterInsert()` arms it: the next `INSERT` the server
 * completes (its CommandComplete and the ReadyForQuery after it, so the row is committed) is not
 * passed on; the client's connection is dropped instead, as a network cut right after the commit.
 * `blackhole()` makes it swallow everything clients send from then on, as a host that vanished.
 */
export const makeProxy = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly port: number; readonly cutAfterInsert: () => void; readonly blackhole: () => void; readonly cuts: () => number; readonly close: () => void }>((resolve) => {
        const sockets = new Set<Socket>()
        let armed = false
        let silent = false
        let cuts = 0
        const server = createServer((client) => {
          const upstream = connect(port, "127.0.0.1")
          sockets.add(client).add(upstream)
          client.on("error", () => undefined)
          upstream.on("error", () => undefined)
          client.on("close", () => upstream.destroy())
          upstream.on("close", () => client.destroy())
          client.on("data", (d: Buffer) => void (silent || upstream.write(d)))
          let held: Buffer | undefined
          upstream.on("data", (d: Buffer) => {
            if (held === undefined && armed) {
              const at = d.indexOf("INSERT 0 ")
              if (at >= 0) held = d.subarray(at)
            } else if (held !== undefined) held = Buffer.concat([held, d])
            if (held === undefined) return void client.write(d)
            if (held.indexOf(Buffer.from([0x5a, 0, 0, 0, 5])) >= 0) {
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
            cuts: () => cuts,
            close: () => {
              for (const s of sockets) s.destroy()
              server.close()
            }
          })
        })
      })
    ),
    (proxy) => Effect.sync(() => proxy.close())
  )
