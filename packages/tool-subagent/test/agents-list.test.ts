import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { ControlTools } from "../src/index.ts"

// Seed: openclaw-sub-agents, "发现": `agents_list` shows the agent ids the caller may currently
// use with sessions_spawn. dsh's types, each with its description and whether the caller may use it.
const setup = (allowed?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const subagents = yield* Subagents.make({
      tree,
      providers: [FixtureProvider.make({ reply: () => ({ output: "ok" }) })],
      types: [
        { ...Fixtures.testType("coder"), description: "writes code" },
        { ...Fixtures.testType("explore"), description: "reads code" },
        { ...Fixtures.testType("acp:codex", "acp"), description: "another vendor's agent" }
      ]
    })
    const main: Vocabulary.ParentInfo = Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp", definition: Fixtures.testDefinition("main", { subagents: allowed }) })
    const tools = yield* ControlTools.make(main).pipe(Effect.provideService(Subagents.Subagents, subagents))
    return Toolbox.make({ tools })
  })
const call = { id: "a", name: "agents_list", arguments: "{}" }
const ctx = { cwd: "/tmp", agent: "main" }

describe("agents_list", () => {
  it.effect("lists the types the caller may delegate to, with descriptions, and the others with why not", () =>
    Effect.gen(function*() {
      const toolbox = yield* setup(["explore", "acp:codex"])
      const result = yield* toolbox.execute(call, ctx)
      assert.isUndefined(result.isError)
      assert.strictEqual(
        result.content,
        "You may delegate to:\n- explore: reads code\n\nNot allowed for you:\n" +
          "- coder: writes code (not in main's subagents list)\n- acp:codex: another vendor's agent (no backend \"acp\" runs it here)"
      )
    }).pipe(Effect.scoped))

  it.effect("with no subagents list every backed type is allowed", () =>
    Effect.gen(function*() {
      const result = yield* (yield* setup()).execute(call, ctx)
      assert.include(result.content, "You may delegate to:\n- coder: writes code\n- explore: reads code")
    }).pipe(Effect.scoped))
})
