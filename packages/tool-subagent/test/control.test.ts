import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Toolbox } from "@dsh/tools"
import { Effect, Schedule } from "effect"
import { ControlTools } from "../src/index.ts"

const setup = Effect.gen(function*() {
  const fixture = FixtureProvider.make({ reply: ({ prompt }) => ({ output: `did ${prompt}`, tokens: 4, delayMs: 20 }) })
  const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* Subagents.make({ tree, providers: [fixture], types: [Fixtures.testType("coder")] })
  const main: Vocabulary.ParentInfo = Fixtures.testParent(ScriptedModel.make({ rules: [] }), { cwd: "/tmp" })
  const tools = yield* ControlTools.make(main).pipe(Effect.provideService(Subagents.Subagents, subagents))
  return { subagents, main, fixture, toolbox: Toolbox.make({ tools }) }
})
const ctx = { cwd: "/tmp", agent: "main" }
const call = (name: string, args: unknown) => ({ id: name, name, arguments: JSON.stringify(args) })

describe("control tools", () => {
  it.live("wait returns background results, which are then not announced again", () =>
    Effect.gen(function*() {
      const { subagents, main, toolbox } = yield* setup
      const accepted = yield* subagents.spawnBackground({ prompt: "a", description: "a", agent: "coder" }, main)
      assert.strictEqual(accepted.status, "accepted")
      const waited = yield* toolbox.execute(call("wait", { timeoutSeconds: 5 }), ctx)
      assert.include(waited.content, "did a")
      assert.include(waited.content, `[subagent ${accepted.handle} (coder) · completed`)
      // Once the run's outcome is recorded, it is delivered: nothing is left to announce.
      const announcements = subagents.tree.announcements
      yield* Effect.sync(() => announcements.record(accepted.runId)?.status).pipe(
        Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (status) => status !== "running" })
      )
      assert.isTrue(announcements.record(accepted.runId)?.delivered)
      assert.strictEqual(yield* announcements.pending("main"), 0)
      assert.deepStrictEqual(yield* announcements.takeTexts("main"), [])
    }).pipe(Effect.scoped))

  it.live("list_agents shows handles, status and usage; send_message continues an idle child", () =>
    Effect.gen(function*() {
      const { subagents, main, fixture, toolbox } = yield* setup
      yield* subagents.spawn({ prompt: "first", description: "f", agent: "coder" }, main)
      const listed = yield* toolbox.execute(call("list_agents", {}), ctx)
      assert.include(listed.content, "coder-1 (coder) is completed")
      assert.include(listed.content, "4 tokens")
      const sent = yield* toolbox.execute(call("send_message", { to: "coder-1", message: "second" }), ctx)
      assert.include(sent.content, "did second")
      assert.deepStrictEqual(fixture.calls.map((c) => c.kind), ["start", "continue"])
      const unknown = yield* toolbox.execute(call("send_message", { to: "ghost-9", message: "x" }), ctx)
      assert.isTrue(unknown.isError)
      assert.include(unknown.content, "no child is named \"ghost-9\"; yours: coder-1")
    }).pipe(Effect.scoped))
})
