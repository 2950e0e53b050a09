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
