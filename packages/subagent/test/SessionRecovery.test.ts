import { assert, describe, it } from "@effect/vitest"
import { MemorySessionStore } from "@dsh/session/testing"
import { Effect } from "effect"
import { SessionRecovery } from "../src/index.ts"

const usage = (total: number) => ({ inputTokens: total - 1, outputTokens: 1, totalTokens: total })
const meta = (handle: string, runId: string, status: string, parent = "main", depth = 1) => ({
  handle, runId, agent: "explore", provider: "spawn", parent, depth, model: "scripted:demo", status, startedAt: `2026-12-02T00:00:0${depth}.000Z`,
  ...(status === "running" ? {} : { endedAt: `2026-12-02T00:00:0${depth + 1}.000Z` })
})

describe("rebuildState", () => {
  it.effect("rebuilds descriptors from meta.json and the parents' start/end events, and the session's times and status", () =>
    Effect.gen(function*() {
      const store = yield* MemorySessionStore.make({ data: MemorySessionStore.makeData() })
      const session = yield* store.create({ agent: "lead", cwd: "/", model: "scripted", id: "s1" })
      yield* session.transcript.append({ type: "turn-start", turn: 0, prompt: "go" })
      yield* session.transcript.append({ type: "subagent-start", handle: "explore-1", agent: "explore", provider: "spawn", runId: "r1", background: true, description: "look around" })
      yield* session.transcript.append({ type: "subagent-end", handle: "explore-1", runId: "r1", status: "completed", usage: usage(10), durationMs: 5, result: "found it" })
      yield* session.transcript.append({ type: "turn-end", turn: 0, status: "completed", result: "done", usage: usage(20), durationMs: 9 })
      const one = yield* session.child("explore-1")
      yield* one.writeMeta(meta("explore-1", "r1", "completed"))
      // A grandchild started by explore-1, still "running" in a session nobody runs: lost.
      yield* one.transcript.append({ type: "subagent-start", handle: "explore-2", agent: "explore", provider: "spawn", runId: "r2", background: false, description: "deeper" })
      const two = yield* session.child("explore-2")
      yield* two.writeMeta(meta("explore-2", "r2", "running", "explore-1", 2))
      yield* two.transcript.append({ type: "usage", model: "scripted:demo", usage: usage(7) })
      const three = yield* session.child("broken-3")
      yield* three.writeMeta({ handle: "broken-3" })

      const rebuilt = yield* SessionRecovery.rebuildState(session, { agent: "agent", cwd: "/work", model: "scripted" })
      const { state } = rebuilt
      assert.strictEqual(state.id, "s1")
      assert.strictEqual(state.agent, "agent")
      assert.strictEqual(state.cwd, "/work")
      assert.strictEqual(state.status, "completed")
      const records = (yield* session.transcript.read).records
      assert.strictEqual(state.createdAt, records[0]!.ts)
      const subagents = state.subagents as Record<string, Record<string, unknown>>
      assert.deepStrictEqual(Object.keys(subagents).sort(), ["explore-1", "explore-2"])
      assert.deepInclude(subagents["explore-1"], { status: "completed", description: "look around", background: true, lastResult: "found it", usage: usage(10), runId: "r1", parent: "main" })
      assert.deepInclude(subagents["explore-2"], { status: "lost", description: "deeper", background: false, usage: usage(7), parent: "explore-1", depth: 2 })
      assert.strictEqual(rebuilt.children, 2)
      assert.isTrue(rebuilt.notes.some((n) => n.includes("broken-3")))
      assert.isTrue(rebuilt.notes.some((n) => n.includes("assumed")))
    }))

  it.effect("a session that never finished a turn is idle", () =>
    Effect.gen(function*() {
      const store = yield* MemorySessionStore.make({ data: MemorySessionStore.makeData() })
      const session = yield* store.create({ agent: "lead", cwd: "/", model: "scripted", id: "s2" })
      yield* session.transcript.append({ type: "turn-start", turn: 0, prompt: "go" })
      const { state } = yield* SessionRecovery.rebuildState(session, { agent: "agent", cwd: "/", model: "scripted" })
      assert.strictEqual(state.status, "idle")
      assert.deepStrictEqual(state.subagents, {})
    }))
})
