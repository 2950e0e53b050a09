import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { CreateSubagentTools } from "../src/index.ts"

/** `create_subagent` over fixed types `coder` and `explore`, with no session on disk. */
const setup = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* Subagents.make({ tree, providers: [FixtureProvider.make({ reply: () => ({ output: "ok" }) })], types: [Fixtures.testType("coder"), Fixtures.testType("explore")] })
  const parent: Vocabulary.ParentInfo = Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp" })
  const tools = yield* CreateSubagentTools.make(parent, { creatorTools: ["Read", "Grep"] }).pipe(Effect.provideService(Subagents.Subagents, subagents))
  return { toolbox: Toolbox.make({ tools }), tree }
})

const call = (args: unknown) => ({ id: "c1", name: "create_subagent", arguments: JSON.stringify(args) })
const ctx = { cwd: "/tmp", agent: "main" }

describe("create_subagent (the seed's CreateSubagent)", () => {
  it.effect("takes name + system_prompt and answers with the seed's message and every available type", () =>
    Effect.gen(function*() {
      const { toolbox, tree } = yield* setup
      const result = yield* toolbox.execute(call({ name: "code-reviewer", system_prompt: "You are a strict code reviewer. Focus on correctness." }), ctx)
      assert.isUndefined(result.isError)
      assert.strictEqual(result.content, "Subagent 'code-reviewer' created successfully.\nAvailable subagents: coder, explore, code-reviewer")
      // No description given: the prompt's first sentence stands in.
      assert.strictEqual(tree.dynamicTypes.get("code-reviewer")?.description, "You are a strict code reviewer.")
    }).pipe(Effect.scoped))

  it.effect("accepts systemPrompt as an alias and keeps an explicit description", () =>
    Effect.gen(function*() {
      const { toolbox, tree } = yield* setup
      const result = yield* toolbox.execute(call({ name: "summarizer", systemPrompt: "You summarize.", description: "very short summaries" }), ctx)
      assert.include(result.content, "Available subagents: coder, explore, summarizer")
      assert.strictEqual(tree.dynamicTypes.get("summarizer")?.description, "very short summaries")
      assert.strictEqual(tree.dynamicTypes.get("summarizer")?.systemPrompt, "You summarize.")
    }).pipe(Effect.scoped))

  it.effect("a missing prompt and a name clash are error results", () =>
    Effect.gen(function*() {
      const { toolbox } = yield* setup
      const missing = yield* toolbox.execute(call({ name: "nothing" }), ctx)
      assert.isTrue(missing.isError)
      assert.include(missing.content, "system_prompt is required")
      const clash = yield* toolbox.execute(call({ name: "explore", system_prompt: "x" }), ctx)
      assert.isTrue(clash.isError)
      assert.include(clash.content, "Subagent with name 'explore' already exists")
    }).pipe(Effect.scoped))

  it("derives a description from the first sentence or line", () => {
    assert.strictEqual(CreateSubagentTools.firstSentence("Reviews SQL! Then more."), "Reviews SQL!")
    assert.strictEqual(CreateSubagentTools.firstSentence("  one line\nsecond"), "one line")
    assert.strictEqual(CreateSubagentTools.firstSentence("version 1.2 is fine"), "version 1.2 is fine")
  })
})
