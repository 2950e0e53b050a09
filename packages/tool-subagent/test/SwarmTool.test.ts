import { assert, describe, it } from "@effect/vitest"
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { type Limits, Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Deferred, Effect, Fiber } from "effect"
import { SwarmTool } from "../src/index.ts"

/** The swarm tool over the fixture provider: `bad` items fail, `hang` items never end. */
const setup = (options: { readonly allowed?: ReadonlyArray<string>; readonly limits?: Limits.SubagentLimitsInput; readonly providers?: ReadonlyArray<Vocabulary.SubagentProvider> } = {}) =>
  Effect.gen(function*() {
    const fixture = FixtureProvider.make({
      reply: ({ prompt }) => (prompt.includes("bad") ? { output: "", status: "failed", notes: `cannot review ${prompt.split(" ").at(-1)}` } : { output: `reviewed ${prompt.split(" ").at(-1)}\nsecond line`, tokens: 5 })
    })
    const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }), limits: options.limits })
    const subagents = yield* Subagents.make({
      tree,
      providers: [fixture, ...(options.providers ?? [])],
      types: [Fixtures.testType("reviewer"), Fixtures.testType("explore"), Fixtures.testType("gated", "gated")]
    })
    const parent: Vocabulary.ParentInfo = Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp", definition: Fixtures.testDefinition("main", { subagents: options.allowed }) })
    const tool = yield* SwarmTool.make(parent).pipe(Effect.provideService(Subagents.Subagents, subagents))
    return { toolbox: Toolbox.make({ tools: [tool] }), fixture, tree, subagents }
  })

const swarm = (args: unknown) => ({ id: "s1", name: "swarm", arguments: JSON.stringify(args) })
const ctx = { cwd: "/tmp", agent: "main" }

describe("the swarm tool", () => {
  it("fills {{item}} and {{index}}, or appends the item", () => {
    assert.strictEqual(SwarmTool.renderSwarmPrompt("review {{item}} ({{index}})", "a.ts", 3), "review a.ts (3)")
    assert.strictEqual(SwarmTool.renderSwarmPrompt("review this file", "a.ts", 1), "review this file\n\na.ts")
  })

  it.effect("runs one child per item and returns the table when all settle; failures are listed; children stay continuable", () =>
    Effect.gen(function*() {
      const { toolbox, fixture, subagents } = yield* setup()
      const result = yield* toolbox.execute(swarm({ agent: "reviewer", prompt: "review {{item}}", items: ["a.ts", "bad.ts", "c|d.ts"] }), ctx)
      assert.isUndefined(result.isError)
      const lines = result.content.split("\n")
      assert.strictEqual(lines[0], "Swarm of 3 × reviewer: 2 completed, 1 failed.")
      assert.include(result.content, "| # | item | handle | status | result |")
      assert.include(result.content, "| 1 | a.ts | reviewer-1 | completed | reviewed a.ts second line |")
      assert.include(result.content, "| 2 | bad.ts | reviewer-2 | failed | (no text) cannot review bad.ts |")
      assert.include(result.content, "| 3 | c\\|d.ts | reviewer-3 | completed | reviewed c|d.ts second line |".replace("reviewed c|d", "reviewed c\\|d"))
      assert.include(result.content, "Not completed (1):\n- #2 bad.ts (reviewer-2): failed: cannot review bad.ts")
      assert.include(result.content, "## 1. a.ts (reviewer-1)\nreviewed a.ts\nsecond line")
      // Handles follow the items, and every child got its own prompt.
      assert.deepStrictEqual(fixture.calls.map((c) => [c.handle, c.prompt]), [["reviewer-1", "review a.ts"], ["reviewer-2", "review bad.ts"], ["reviewer-3", "review c|d.ts"]])
      const again = yield* subagents.send("reviewer-1", "and the tests?", "user")
      assert.strictEqual(again._tag, "Replied")
    }).pipe(Effect.scoped))

  it.effect("is refused as a whole, before any child starts: a type not allowed, no room under max_children", () =>
    Effect.gen(function*() {
      const limited = yield* setup({ allowed: ["explore"], limits: { maxChildren: 2 } })
      const denied = yield* limited.toolbox.execute(swarm({ agent: "reviewer", prompt: "x {{item}}", items: ["a"] }), ctx)
      assert.isTrue(denied.isError)
      assert.include(denied.content, "may not delegate to \"reviewer\"")
      const full = yield* limited.toolbox.execute(swarm({ agent: "explore", prompt: "x {{item}}", items: ["a", "b", "c"] }), ctx)
      assert.isTrue(full.isError)
      assert.include(full.content, "3 children do not fit: this session has room for 2 more (max_children 2)")
      assert.strictEqual(limited.fixture.calls.length, 0)
      // Two fit, and then the session is full.
      const fits = yield* limited.toolbox.execute(swarm({ agent: "explore", prompt: "x {{item}}", items: ["a", "b"] }), ctx)
      assert.include(fits.content, "2 completed")
      assert.strictEqual(yield* limited.tree.childCapacity, 0)
    }).pipe(Effect.scoped))

  it.effect(`takes 1 to ${SwarmTool.MAX_SWARM_ITEMS} items`, () =>
    Effect.gen(function*() {
      const { toolbox } = yield* setup()
      const none = yield* toolbox.execute(swarm({ prompt: "x", items: [] }), ctx)
      assert.include(none.content, "invalid arguments for swarm")
      const many = yield* toolbox.execute(swarm({ prompt: "x", items: Array.from({ length: SwarmTool.MAX_SWARM_ITEMS + 1 }, (_, i) => `i${i}`) }), ctx)
      assert.include(many.content, "invalid arguments for swarm")
    }).pipe(Effect.scoped))

  it.effect("runs through the lane: no more children at once than max_concurrent", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let running = 0
      let most = 0
      let started = 0
      const gated: Vocabulary.SubagentProvider = {
        specificationVersion: "v1",
        name: "gated",
        description: "waits for the gate",
        start: () =>
          Effect.gen(function*() {
            started++
            most = Math.max(most, ++running)
            yield* Deferred.await(gate)
            running--
            return { status: "completed", output: "done", usage: Usage.make(1, 1) }
          })
      }
      const { toolbox } = yield* setup({ limits: { maxConcurrent: 2 }, providers: [gated] })
      const fiber = yield* Effect.forkChild(toolbox.execute(swarm({ agent: "gated", prompt: "{{item}}", items: ["1", "2", "3", "4", "5"] }), ctx))
      while (started < 2) yield* Effect.yieldNow
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      assert.strictEqual(started, 2)
      yield* Deferred.succeed(gate, undefined)
      const result = yield* Fiber.join(fiber)
      assert.include(result.content, "5 completed")
      assert.strictEqual(most, 2)
    }).pipe(Effect.scoped))

  it.effect("background: true returns the accepted runs at once; each outcome is announced", () =>
    Effect.gen(function*() {
      const { toolbox, tree } = yield* setup()
      const result = yield* toolbox.execute(swarm({ agent: "reviewer", prompt: "review {{item}}", items: ["a.ts", "b.ts"], background: true }), ctx)
      assert.include(result.content, "Swarm of 2 × reviewer: 2 accepted.")
      assert.match(result.content, /\| 1 \| a\.ts \| reviewer-1 \| accepted \| runId \S+ \|/)
      assert.include(result.content, "announced")
      while ((yield* tree.announcements.pending("main")) > 0 && tree.descriptors.all().some((d) => d.status !== "completed")) yield* Effect.yieldNow
      const texts = yield* tree.announcements.takeTexts("main")
      assert.strictEqual(texts.length, 2)
      assert.include(texts.join("\n"), "Handle: reviewer-2 (reviewer)")
    }).pipe(Effect.scoped))
})
