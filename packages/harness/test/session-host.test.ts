import { AgentCatalog } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { SessionHost } from "../src/index.ts"

const fixture = FixtureProvider.make({ name: "fixture", reply: ({ prompt }) => ({ output: `done: ${prompt}` }) })
const stores = Layer.mergeAll(MemorySessionStore.layer, ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: { rules: [], fallback: { text: "ok" } } } })]))

describe("SessionHost (a runner hosting a session's children)", () => {
  it.effect("loads a session once for children hosted one after another, and lets it go once none came for a while", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const session = yield* store.create({ agent: "lead", cwd: process.cwd(), model: "scripted:lead" })
      let loads = 0
      const host = yield* SessionHost.make({
        backends: [fixture],
        delegatesRunOn: "fixture",
        agents: () =>
          Effect.sync(() => {
            loads += 1
            return AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead"), delegates: [Fixtures.testDefinition("coder")] })
          })
      })
      // Each hosted run in a scope of its own that ends before the next begins, as instant children's do.
      for (const handle of ["coder-1", "coder-2", "coder-3"]) yield* Effect.scoped(host.open(session.id, handle))
      assert.strictEqual(loads, 1, "one load for three children hosted one after another")
      yield* TestClock.adjust("31 seconds")
      yield* Effect.scoped(host.open(session.id, "coder-4"))
      assert.strictEqual(loads, 2, "loaded again after a while without hosted runs")
    }).pipe(Effect.scoped, Effect.provide(stores)))
})
