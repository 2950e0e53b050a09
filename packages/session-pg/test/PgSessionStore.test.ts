import { SessionStoreSuite } from "@dsh/session/conformance"
import { Effect } from "effect"
import { describe } from "vitest"
import { freshSchema, pg, storeAt } from "./support.ts"

// Each test gets a schema of its own; `start` is a new store over a new pool: another process.
describe.skipIf(pg === undefined)("conformance", () => {
  SessionStoreSuite.sessionStoreSuite("PgSessionStore", Effect.map(freshSchema, (url) => ({ start: storeAt(url) })))
})
