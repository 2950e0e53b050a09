import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Postgres } from "@dsh/testing-pg"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createServer } from "node:net"
import { afterAll } from "vitest"
import { RunnerPresence } from "../src/index.ts"

/** Waiting for a runner, against a real PostgreSQL: what the parent reads of Effect Cluster's runner table. */
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

const client = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })

const closedPort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 1)))
  })
})

describe("displayStore", () => {
  it("drops the password", () => {
    assert.strictEqual(RunnerPresence.displayStore("postgres://dsh:s3cret@db:5432/dsh"), "postgres://dsh@db:5432/dsh")
    assert.strictEqual(RunnerPresence.displayStore("postgres://db/dsh"), "postgres://db/dsh")
  })
})

describe.skipIf(pg === undefined)("awaitRunner", () => {
  it.live("no runner table yet: one notice, then NoRunner naming the store", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg!.createDatabase())
      const notices: Array<string> = []
      assert.strictEqual(yield* RunnerPresence.liveRunnerCount.pipe(Effect.provide(client(url))), 0)
      const error = yield* Effect.flip(RunnerPresence.awaitRunner({ wait: "600 millis", store: "STORE", onWaiting: (n) => Effect.sync(() => notices.push(n)) }).pipe(Effect.provide(client(url))))
      assert.deepStrictEqual(notices, ["waiting for a runner (none registered in STORE)"])
      assert.strictEqual(error.reason, "NoRunner")
      assert.include(error.message, "no runner registered in STORE")
    }))

  it.live("a runner that registers meanwhile ends the wait", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // The shape of Effect Cluster's table, for this test only (a runner creates the real one).
      yield* sql`CREATE TABLE cluster_runners (address text PRIMARY KEY, runner text, healthy boolean, last_heartbeat timestamp with time zone)`
      const notices: Array<string> = []
      const waiting = yield* Effect.forkChild(RunnerPresence.awaitRunner({ wait: "60 seconds", onWaiting: (n) => Effect.sync(() => notices.push(n)) }))
      yield* Effect.yieldNow
      yield* sql`INSERT INTO cluster_runners VALUES ('127.0.0.1:1', 'r', true, now())`
      yield* Fiber.join(waiting)
      assert.lengthOf(notices, 1)
    }).pipe(Effect.provide(Layer.unwrap(Effect.map(Effect.promise(() => pg!.createDatabase()), client)))))

  it.live("a store that refuses connections: StoreUnreachable, no notice", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const notices: Array<string> = []
      const error = yield* Effect.flip(
        RunnerPresence.awaitRunner({ wait: "300 millis", store: "STORE", onWaiting: (n) => Effect.sync(() => notices.push(n)) }).pipe(
          Effect.provide(client(`postgres://dsh:pw@127.0.0.1:${port}/dsh`))
        )
      )
      assert.deepStrictEqual(notices, [])
      assert.include(error.message, "cannot reach the store STORE")
    }))
})
