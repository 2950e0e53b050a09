import { PgClient } from "@effect/sql-pg"
import { FaultProxy, Postgres } from "@dsh/testing-pg"
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

/** A `FaultProxy` in front of the server on `port`, closed with the calling scope. */
export const makeProxy = (port: number) => Effect.acquireRelease(Effect.promise(() => FaultProxy.start(port)), (proxy) => Effect.sync(() => proxy.close()))
