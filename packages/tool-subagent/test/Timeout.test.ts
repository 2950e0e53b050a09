import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { SubagentTool } from "../src/index.ts"

// Seed: openclaw-sub-agents, "工具参数": `runTimeoutSeconds` defaults to 0 — no timeout; set, the
// run is stopped after N seconds. dsh keeps its tree default (`[limits] timeout_seconds`), and a
// call's 0 lifts it.
const setup = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }), limits: { timeoutSeconds: 1 } })
  const subagents = yield* Subagents.make({ tree, providers: [FixtureProvider.make({ reply: () => ({ hang: true }) })], types: [Fixtures.testType("explore")] })
  const tool = yield* SubagentTool.make(Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp" })).pipe(Effect.provideService(Subagents.Subagents, subagents))
  return Toolbox.make({ tools: [tool] })
})

const call = (timeoutSeconds?: number) => ({
  id: "c1",
  name: "subagent",
  arguments: JSON.stringify({ description: "t", prompt: "wait forever", agent: "explore", ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) })
})
const ctx = { cwd: "/tmp", agent: "main" }

describe("the subagent tool's timeoutSeconds", () => {
  it.effect("the tree's default stops a child that runs too long", () =>
    Effect.gen(function*() {
      const toolbox = yield* setup
      const fiber = yield* Effect.forkChild(toolbox.execute(call(), ctx))
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      assert.include(result.content, "· timeout ·")
    }).pipe(Effect.scoped))

  it.effect("0 means no timeout: the child is still running past the tree's default, until it is interrupted", () =>
    Effect.gen(function*() {
      const toolbox = yield* setup
      const fiber = yield* Effect.forkChild(toolbox.execute(call(0), ctx))
      yield* TestClock.adjust("1 hour")
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit), "it had not ended on its own")
    }).pipe(Effect.scoped))
})
