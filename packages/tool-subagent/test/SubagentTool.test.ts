import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { SubagentTool } from "../src/index.ts"


/** The subagent tool with no model and no child: the fixture provider stands in. */
const setup = (allowedTypes?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fixture = FixtureProvider.make({
      reply: ({ prompt }) =>
        prompt.includes("hang")
          ? { hang: true }
          : prompt.includes("fail")
          ? { output: "", status: "failed", notes: "it broke" }
          : prompt.includes("structured")
          ? { output: "Found them.\n\n{\"files\":[\"a.ts\"]}" }
          : { output: `did: ${prompt}`, tokens: 12 }
    })
    const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const subagents = yield* Subagents.make({
      tree,
      providers: [fixture],
      types: [
        { ...Fixtures.testType("coder"), description: "writes code" },
        { ...Fixtures.testType("explore"), description: "reads code" }
      ]
    })
    // The parent's definition decides what it may delegate to (its `subagents`).
    const parent: Vocabulary.ParentInfo = Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp", definition: Fixtures.testDefinition("main", { subagents: allowedTypes }) })
    const tool = yield* SubagentTool.make(parent).pipe(Effect.provideService(Subagents.Subagents, subagents))
    return { toolbox: Toolbox.make({ tools: [tool] }), fixture, tool, tree }
  })

const call = (args: unknown) => ({ id: "c1", name: "subagent", arguments: JSON.stringify(args) })

describe("the subagent tool", () => {
  it.effect("offers the types of its context with their descriptions", () =>
    Effect.gen(function*() {
      const { toolbox } = yield* setup(["explore"])
      const spec = toolbox.specs[0]
      assert.include(spec?.description ?? "", "- explore: reads code")
      assert.notInclude(spec?.description ?? "", "coder")
    }).pipe(Effect.scoped))

  it.effect("returns the child's text and a status line with handle, status, tokens and duration", () =>
    Effect.gen(function*() {
      const { toolbox, fixture } = yield* setup()
      const result = yield* toolbox.execute(call({ description: "task", prompt: "count the files" }), { cwd: "/tmp", agent: "main" })
      assert.isUndefined(result.isError)
      assert.match(result.content, /^did: count the files\n\n\[subagent coder-1 \(coder\) · completed · 12 tokens · \d+\.\ds\]$/)
      assert.deepStrictEqual(fixture.calls.map((c) => c.agent), ["coder"])
    }).pipe(Effect.scoped))

  it.effect("refusals and failures are results the model can read", () =>
    Effect.gen(function*() {
      const { toolbox } = yield* setup(["explore"])
      const ctx = { cwd: "/tmp", agent: "main" }
      const unknown = yield* toolbox.execute(call({ description: "t", prompt: "x", agent: "wizard" }), ctx)
      assert.isTrue(unknown.isError)
      assert.include(unknown.content, "unknown agent type \"wizard\"; available: explore")
      const denied = yield* toolbox.execute(call({ description: "t", prompt: "x", agent: "coder" }), ctx)
      assert.include(denied.content, "may not delegate to \"coder\"")
      const failed = yield* toolbox.execute(call({ description: "t", prompt: "fail please", agent: "explore" }), ctx)
      assert.isTrue(failed.isError)
      assert.include(failed.content, "· failed ·")
      assert.include(failed.content, "Notes: it broke")
      const invalid = yield* toolbox.execute(call({ prompt: "no description" }), ctx)
      assert.include(invalid.content, "invalid arguments for subagent")
    }).pipe(Effect.scoped))

  it.effect("passes cleanup on to the child's record, and refuses a value it does not know", () =>
    Effect.gen(function*() {
      const { toolbox, tree } = yield* setup()
      const ctx = { cwd: "/tmp", agent: "main" }
      yield* toolbox.execute(call({ description: "t", prompt: "tidy up", cleanup: "delete" }), ctx)
      assert.strictEqual(tree.descriptors.get("coder-1")?.cleanup, "delete")
      yield* toolbox.execute(call({ description: "t", prompt: "keep it" }), ctx)
      assert.isUndefined(tree.descriptors.get("coder-2")?.cleanup, "keep is the default and is not written")
      const bad = yield* toolbox.execute(call({ description: "t", prompt: "x", cleanup: "shred" }), ctx)
      assert.isTrue(bad.isError)
      assert.include(bad.content, "invalid arguments for subagent")
    }).pipe(Effect.scoped))

  it.effect("with resultSchema, returns the child's reported JSON under result, or an error result without it", () =>
    Effect.gen(function*() {
      const { toolbox } = yield* setup()
      const ctx = { cwd: "/tmp", agent: "main" }
      const resultSchema = { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"] }
      const structured = yield* toolbox.execute(call({ description: "t", prompt: "structured list", resultSchema }), ctx)
      assert.isUndefined(structured.isError)
      assert.deepStrictEqual(JSON.parse(structured.content), { result: { files: ["a.ts"] }, handle: "coder-1", status: "completed", text: "Found them." })
      const plain = yield* toolbox.execute(call({ description: "t", prompt: "no json", resultSchema }), ctx)
      assert.isTrue(plain.isError)
      assert.include(plain.content, "The child did not report a structured result")
      const bad = yield* toolbox.execute(call({ description: "t", prompt: "x", resultSchema: { type: 7 } }), ctx)
      assert.isTrue(bad.isError)
      assert.include(bad.content, "resultSchema is not a JSON Schema the child can report against")
    }).pipe(Effect.scoped))
})
