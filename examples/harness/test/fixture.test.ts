// (c) The child boundary replaced by a fixture: no child model runs, and the test asserts
// what the parent's model was shown, through the same host a harness runs in production.
import { AgentCatalog, AgentHost } from "@dsh/agent"
import type { Messages } from "@dsh/core"
import { Harness } from "@dsh/harness"
import { LanguageModel, ModelRegistry } from "@dsh/llm"
import { ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"

/** The parent under test delegates once, then answers; `reply` decides what the child "did". */
const parentRun = (reply: () => FixtureProvider.FixtureReply) =>
  Effect.gen(function*() {
    const seen: Array<ReadonlyArray<Messages.Message>> = []
    const script = ScriptedModel.make({
      rules: [
        { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "review", prompt: "review src/", agent: "reviewer" } }] } },
        { reply: { text: "ok" } }
      ]
    })
    // A model that records what the parent was shown.
    const spy = LanguageModel.make({ provider: "spy", model: "parent", stream: (request) => (seen.push(request.messages), script.stream(request)) })
    const fixture = FixtureProvider.make({ reply })
    const host = Harness.layer({
      agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead"), delegates: [Fixtures.testDefinition("reviewer")] })),
      backends: [fixture],
      delegatesRunOn: fixture.name,
      model: "spy"
    }).pipe(Layer.provide(Layer.mergeAll(
      MemorySessionStore.layer,
      ModelRegistry.layerWith([{ name: "spy", description: "the spy", create: () => Effect.succeed(spy) }])
    )))
    return yield* Effect.gen(function*() {
      const dsh = yield* AgentHost.AgentHost
      const { id } = yield* dsh.createSession({ cwd: process.cwd() })
      const result = yield* dsh.prompt({ sessionId: id, prompt: "go" })
      return { calls: fixture.calls, result, toolResult: seen[1]?.find((m) => m.role === "tool") }
    }).pipe(Effect.provide(host))
  }).pipe(Effect.runPromise)

describe("a parent whose children are fixtures", () => {
  it("sees the child's result with its handle and status", async () => {
    const { calls, result, toolResult } = await parentRun(() => ({ output: "two findings", tokens: 12 }))
    expect(calls).toEqual([{ kind: "start", handle: "reviewer-1", prompt: "review src/", agent: "reviewer" }])
    expect(toolResult?.content).toContain("two findings")
    expect(toolResult?.content).toContain("reviewer-1 (reviewer) · completed · 12 tokens")
    expect(result.subagents).toEqual([expect.objectContaining({ name: "reviewer-1", status: "completed" })])
  })

  it("sees a crashed child as a failed result it can act on, not an exception", async () => {
    const { result, toolResult } = await parentRun(() => ({ crash: "the child's process died" }))
    expect(toolResult?.role === "tool" && toolResult.isError).toBe(true)
    expect(toolResult?.content).toContain("· failed ·")
    expect(toolResult?.content).toContain("the child's process died")
    expect(result.status).toBe("completed")
  })
})
