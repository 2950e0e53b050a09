import { AgentCatalog, AgentHost } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session"
import { Fixtures } from "@dsh/subagent/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Harness } from "../src/index.ts"

/** A host whose agent catalog counts how often it is read; the first read names the main agent "lead". */
const countingHost = () => {
  const reads: Array<string> = []
  const layer = Harness.layer({
    backends: [],
    agents: (request) =>
      Effect.sync(() => {
        reads.push(request.cwd)
        return AgentCatalog.staticCatalog({ main: Fixtures.testDefinition(reads.length === 1 ? "lead" : "lead-reread") })
      })
  }).pipe(Layer.provide(Layer.mergeAll(MemorySessionStore.layer, ModelRegistry.layerWith([ScriptedAdapter.ScriptedAdapter]))))
  return { reads, layer }
}

describe("a new session's agent catalog", () => {
  it.effect("is read once for creating the session and its first prompt", () => {
    const { reads, layer } = countingHost()
    return Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: process.cwd() })
      const first = yield* host.prompt({ sessionId: id, prompt: "hello" })
      assert.strictEqual(first.status, "completed")
      assert.strictEqual(reads.length, 1)
      // Later prompts read the agent files again: an edited file takes effect.
      yield* host.prompt({ sessionId: id, prompt: "again" })
      assert.strictEqual(reads.length, 2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("is read again when the first prompt comes long after the creation", () => {
    const { reads, layer } = countingHost()
    return Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: process.cwd() })
      yield* TestClock.adjust("6 seconds")
      yield* host.prompt({ sessionId: id, prompt: "hello" })
      assert.strictEqual(reads.length, 2)
    }).pipe(Effect.provide(layer))
  })
})
