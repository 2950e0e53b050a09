// (c) The child boundary replaced by a fixture: no child model runs, and the test asserts
// what the parent's model was shown.
import { type AgentDefinition, runTurn } from "@dsh/agent"
import type { Message } from "@dsh/core"
import { makeLanguageModel } from "@dsh/llm"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { makeSubagents, makeSubagentTree, type ParentInfo } from "@dsh/subagent"
import { makeFixtureProvider } from "@dsh/subagent/testing"
import { makeSubagentTool } from "@dsh/tool-subagent"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

const reviewer: AgentDefinition = { name: "reviewer", description: "reviews", systemPrompt: "", override: false, scope: "runtime", source: "test" }

/** The parent under test: delegates once, then answers with what it got. */
const parentRun = (reply: Parameters<typeof makeFixtureProvider>[0]["reply"]) =>
  Effect.gen(function*() {
    const seen: Array<ReadonlyArray<Message>> = []
    const scripted = makeScriptedModel({
      rules: [
        { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "review", prompt: "review src/", agent: "reviewer" } }] } },
        { reply: { text: "ok" } }
      ]
    })
    const model = makeLanguageModel({
      provider: "scripted",
      model: "spy",
      stream: (request) => {
        seen.push(request.messages)
        return scripted.stream(request)
      }
    })
    const fixture = makeFixtureProvider({ reply })
    const tree = yield* makeSubagentTree({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const subagents = yield* makeSubagents({
      tree,
      providers: [fixture],
      types: [{ name: "reviewer", description: "reviews", provider: fixture.name, definition: reviewer }]
    })
    const parent: ParentInfo = { handle: "main", depth: 0, cwd: "/", model }
    const toolbox = makeToolbox({ tools: [yield* makeSubagentTool(subagents, parent)] })
    yield* runTurn({
      agent: "main", cwd: "/", model, systemPrompt: "", toolbox: Effect.succeed(toolbox),
      history: [], prompt: "go", turn: 0, onEvent: () => Effect.void
    })
    const toolResult = seen[1]?.find((m) => m.role === "tool")
    return { calls: fixture.calls, toolResult }
  }).pipe(Effect.scoped, Effect.runPromise)

describe("a parent whose children are fixtures", () => {
  it("sees the child's result with its handle and status", async () => {
    const { calls, toolResult } = await parentRun(() => ({ output: "two findings", tokens: 12 }))
    expect(calls).toEqual([{ kind: "start", handle: "reviewer-1", prompt: "review src/", agent: "reviewer" }])
    expect(toolResult?.content).toContain("two findings")
    expect(toolResult?.content).toContain("reviewer-1 (reviewer) · completed · 12 tokens")
  })

  it("sees a crashed child as a failed result it can act on, not an exception", async () => {
    const { toolResult } = await parentRun(() => ({ crash: "the child's process died" }))
    expect(toolResult?.role === "tool" && toolResult.isError).toBe(true)
    expect(toolResult?.content).toContain("· failed ·")
    expect(toolResult?.content).toContain("the child's process died")
  })
})
