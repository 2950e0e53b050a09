import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { MemorySessionStore, SessionStore } from "../src/index.ts"
import { Samples, SessionStoreSuite } from "../src/conformance.ts"
import * as Testing from "../src/testing.ts"

SessionStoreSuite.sessionStoreSuite("MemorySessionStore", Effect.map(Effect.sync(MemorySessionStore.makeData), (data) => ({ start: MemorySessionStore.make({ data }) })))

describe("MemorySessionStore.layer", () => {
  it.effect("provides a SessionStore; layerWith shares data like a restart", () =>
    Effect.gen(function*() {
      const data = MemorySessionStore.makeData()
      const id = yield* Effect.gen(function*() {
        const handle = yield* (yield* SessionStore.SessionStore).create(Samples.sampleSession)
        yield* handle.transcript.append({ type: "notice", level: "info", message: "hi" })
        yield* handle.transcript.sync
        return handle.id
      }).pipe(Effect.provide(MemorySessionStore.layerWith({ data })))
      const records = yield* Effect.gen(function*() {
        const handle = yield* (yield* SessionStore.SessionStore).open(id)
        return (yield* handle.transcript.read).records
      }).pipe(Effect.provide(MemorySessionStore.layerWith({ data })))
      assert.deepStrictEqual(records.map((r) => r.type), ["notice"])
      const fresh = yield* Effect.gen(function*() {
        return yield* (yield* SessionStore.SessionStore).open(id)
      }).pipe(Effect.provide(MemorySessionStore.layer), Effect.flip)
      assert.strictEqual(fresh.reason, "NotFound")
    }))
})

describe("MemorySessionStore entries", () => {
  it("is exported from the main entry and, for compatibility, from @dsh/session/testing", () => {
    assert.strictEqual(Testing.MemorySessionStore.layer, MemorySessionStore.layer)
  })
})
