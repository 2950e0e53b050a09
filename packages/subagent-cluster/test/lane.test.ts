import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Postgres } from "@dsh/testing-pg"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import * as Statement from "effect/sql/Statement"
import { afterAll } from "vitest"
import { ClusterLane } from "../src/index.ts"

/** The cluster-wide lane against a real PostgreSQL: what it sends while children queue for its slots. */
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

describe.skipIf(pg === undefined)("ClusterLane", () => {
  it.live("children queued behind a full lane wait without claims that would fail, run one at a time, and a short hold sends no heartbeat", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg!.createDatabase())
      const sql = yield* PgClient.make({ url: Redacted.make(url) }).pipe(Effect.provide(Reactivity.layer))
      const lane = yield* ClusterLane.make({ name: "counted", slots: 1, lease: "60 seconds" }).pipe(Effect.provideService(PgClient.PgClient, sql))
      // Every lane statement the children's fibers send (effect/sql's own hook), by what it does.
      const sent = { claims: 0, heartbeats: 0 }
      const counter: Statement.Transformer = (statement) =>
        Effect.sync(() => {
          const text = statement.compile()[0]
          if (/WITH free AS/.test(text)) sent.claims += 1
          else if (/^UPDATE dsh_lane_slots SET expires_at/.test(text.trim())) sent.heartbeats += 1
          return statement
        })
      const gate = yield* Deferred.make<void>()
      const holding = yield* Deferred.make<void>()
      let running = 0
      let most = 0
      const work = (first: boolean) =>
        Effect.gen(function*() {
          running += 1
          most = Math.max(most, running)
          if (first) yield* Deferred.succeed(holding, undefined).pipe(Effect.andThen(Deferred.await(gate)))
          running -= 1
        })
      const first = yield* lane.withSlot(work(true), Effect.void).pipe(Effect.provideService(Statement.CurrentTransformer, counter), Effect.forkChild)
      yield* Deferred.await(holding)
      // They arrive one after another, as a parent admits them: each once the one before it queued.
      const others: Array<Fiber.Fiber<void>> = []
      for (let i = 0; i < 9; i++) {
        const queued = yield* Deferred.make<void>()
        others.push(yield* lane.withSlot(work(false), Deferred.succeed(queued, undefined).pipe(Effect.asVoid)).pipe(
          Effect.provideService(Statement.CurrentTransformer, counter),
          Effect.forkChild
        ))
        yield* Deferred.await(queued)
      }
      // The holder's claim, the first waiter's failed one, and perhaps that waiter's look once it has its turn.
      assert.isAtMost(sent.claims, 3, `claims while nine children queued behind one, one after another: ${sent.claims}`)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Effect.forEach(others, Fiber.join)
      assert.strictEqual(most, 1, "one slot: one child at a time")
      assert.strictEqual(sent.heartbeats, 0, "a slot held for less than a beat is not renewed")
      const [free] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM dsh_lane_slots WHERE lane = 'counted' AND holder IS NULL`
      assert.strictEqual(free!.n, 1, "the slot is free again")
    }))

  it.live("a queued child that is stopped while it has the turn to look for a slot does not hold up the ones behind it", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg!.createDatabase())
      const sql = yield* PgClient.make({ url: Redacted.make(url) }).pipe(Effect.provide(Reactivity.layer))
      const lane = yield* ClusterLane.make({ name: "stopped", slots: 1, lease: "60 seconds" }).pipe(Effect.provideService(PgClient.PgClient, sql))
      const gate = yield* Deferred.make<void>()
      const holding = yield* Deferred.make<void>()
      const ran: Array<string> = []
      const first = yield* lane.withSlot(Deferred.succeed(holding, undefined).pipe(Effect.andThen(Deferred.await(gate))), Effect.void).pipe(Effect.forkChild)
      yield* Deferred.await(holding)
      const queue = (name: string) =>
        Effect.gen(function*() {
          const queued = yield* Deferred.make<void>()
          const fiber = yield* lane.withSlot(Effect.sync(() => void ran.push(name)), Deferred.succeed(queued, undefined).pipe(Effect.asVoid)).pipe(Effect.forkChild)
          yield* Deferred.await(queued)
          return fiber
        })
      // The first in the queue has the turn (it waits for a release); the other two wait for the turn.
      const stopped = yield* queue("stopped")
      const second = yield* queue("second")
      const third = yield* queue("third")
      yield* Fiber.interrupt(stopped)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      assert.deepStrictEqual(ran, ["second", "third"], "the two behind the stopped one run, in their order")
    }))
})
