import { assert, describe, it } from "@effect/vitest"
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session/testing"
import { Effect } from "effect"
import { Subagents, SubagentTree, type Vocabulary } from "../src/index.ts"
import { Fixtures } from "../src/testing.ts"

// Issue 21 item 5(b) at the shared layer: whatever the backend, a child's run records and holds
// at most `maxChildOutputBytes`; past it the child is stopped and its run is `failed`.

const model = ScriptedModel.make({ rules: [] })
const main = Fixtures.testParent(model, { cwd: "/tmp" })
const CHUNK = "x".repeat(1024)

/** A backend that records a message per KiB and streams without end until it is stopped. */
const flooding = (stopped: { value: boolean }): Vocabulary.SubagentProvider => ({
  specificationVersion: "v1",
  name: "flood",
  description: "floods its parent",
  start: (context) =>
    Effect.gen(function*() {
      yield* context.store!.transcript.append({ type: "turn-start", turn: 1, prompt: context.request.prompt }).pipe(Effect.orDie)
      for (let i = 0; ; i++) {
        const event = i % 2 === 0
          ? { type: "text-delta" as const, text: CHUNK }
          : { type: "message" as const, message: { role: "assistant" as const, content: CHUNK } }
        // Recorded and forwarded: the same event, counted once.
        yield* context.store!.transcript.append(event).pipe(Effect.orDie)
        yield* context.onEvent(event)
        yield* Effect.yieldNow
      }
    }).pipe(
      Effect.onInterrupt(() => Effect.sync(() => (stopped.value = true))),
      Effect.as({ status: "completed" as const, output: "never", usage: Usage.emptyUsage })
    )
})

describe("the per-child output cap", () => {
  it.effect("a child past max_child_output_bytes is stopped as failed; its transcript and the parent's record stay under the cap", () =>
    Effect.gen(function*() {
      const store = yield* MemorySessionStore.make()
      const session = yield* store.create({ agent: "main", cwd: "/tmp", model: "scripted" })
      const limit = 64 * 1024
      const tree = yield* SubagentTree.make({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }), limits: { maxChildOutputBytes: limit } })
      const stopped = { value: false }
      const subagents = yield* Subagents.make({ tree, providers: [flooding(stopped)], types: [Fixtures.testType("flooder", "flood")] })
      const parentEvents: Array<{ type: string; result?: string }> = []
      const parent = { ...main, onEvent: (e: { type: string }) => Effect.sync(() => void parentEvents.push(e)) }
      const result = yield* subagents.spawn({ prompt: "flood", description: "flood", agent: "flooder" }, parent)
      assert.strictEqual(result.status, "failed")
      assert.include(result.notes, "max_child_output_bytes")
      assert.isTrue(stopped.value, "the provider was stopped")
      const child = yield* session.child(result.handle)
      const { records } = yield* child.transcript.read
      const bytes = records.reduce((n, r) => n + JSON.stringify(r).length, 0)
      assert.isBelow(bytes, limit + 8 * 1024, "the transcript holds at most the cap (plus the turn's records)")
      assert.isAtMost(result.output.length, limit)
      const end = parentEvents.find((e) => e.type === "subagent-end")
      assert.isAtMost(end?.result?.length ?? 0, limit)
    }).pipe(Effect.scoped))
})
