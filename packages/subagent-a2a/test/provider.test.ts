import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeEnv, serveSdkAgent } from "./support.ts"

// A dsh child speaking to an agent served by @a2a-js/sdk's own server classes over real HTTP.
const flow = (streaming: boolean) =>
  Effect.gen(function*() {
    const server = yield* serveSdkAgent({ streaming })
    const env = yield* makeEnv([{ name: "echo", url: server.url }])
    assert.deepStrictEqual(env.backend.statuses, [{ name: "echo", url: server.url, status: "ok" }])
    const [type] = yield* env.subagents.availableTypes(env.parent)
    assert.strictEqual(type?.name, "a2a:echo")
    assert.include(type?.description ?? "", "repeats what it is told")
    assert.include(type?.description ?? "", "echo (says it back)")

    const r = yield* env.subagents.spawn({ prompt: "echo hello world", description: "echo", agent: "a2a:echo" }, env.parent)
    assert.strictEqual(r.status, "completed", r.notes)
    // The two artifact chunks are joined per artifactId.
    assert.strictEqual(r.output, "hello world")
    assert.strictEqual(r.usage.totalTokens, 8)

    // input-required: the child ends idle with the question, and a message answers it.
    const asked = yield* env.subagents.spawn({ prompt: "ask me", description: "ask", agent: "a2a:echo" }, env.parent)
    assert.strictEqual(asked.status, "completed")
    assert.strictEqual(asked.output, "which colour?")
    assert.include(asked.notes ?? "", "asks for input")
    const answered = yield* env.subagents.send(asked.handle, "echo blue", "user")
    assert.strictEqual(answered._tag, "Replied")
    if (answered._tag === "Replied") {
      assert.strictEqual(answered.result.status, "completed", answered.result.notes)
      assert.strictEqual(answered.result.output, "blue")
    }

    const failed = yield* env.subagents.spawn({ prompt: "fail now", description: "fail", agent: "a2a:echo" }, env.parent)
    assert.strictEqual(failed.status, "failed")
    assert.include(failed.notes ?? "", "a2a:echo: the agent's task failed: it broke")
  }).pipe(Effect.scoped)

describe("subagent-a2a against the SDK's own server", () => {
  it.live("streaming: artifacts, usage, input-required continued, failure", () => flow(true), 30_000)
  it.live("non-streaming: send then get-task polling", () => flow(false), 30_000)

  it.live("a stream that never ends: the child times out, cancel-task sent", () =>
    Effect.gen(function*() {
      const server = yield* serveSdkAgent({ streaming: true })
      const env = yield* makeEnv([{ name: "echo", url: server.url }])
      const r = yield* env.subagents.spawn({ prompt: "hang forever", description: "hang", agent: "a2a:echo", timeoutSeconds: 1 }, env.parent)
      assert.strictEqual(r.status, "timeout", r.notes)
      assert.strictEqual(server.cancelled.length, 1)
    }).pipe(Effect.scoped), 30_000)
})
