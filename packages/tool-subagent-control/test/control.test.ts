import { assert, describe, it } from "@effect/vitest"
import type { AgentDefinition } from "@dsh/agent"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { makeSubagents, makeSubagentTree, type ParentInfo } from "@dsh/subagent"
import { makeFixtureProvider } from "@dsh/subagent/testing"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import { makeControlTools } from "../src/index.ts"

const def: AgentDefinition = { name: "coder", description: "d", systemPrompt: "", override: false, scope: "builtin", source: "builtin:coder" }

const setup = Effect.gen(function*() {
  const fixture = makeFixtureProvider({ reply: ({ prompt }) => ({ output: `did ${prompt}`, tokens: 4, delayMs: 20 }) })
  const tree = yield* makeSubagentTree({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* makeSubagents({ tree, providers: [fixture], types: [{ name: "coder", description: "d", provider: "fixture", definition: def }] })
  const main: ParentInfo = { handle: "main", depth: 0, cwd: "/tmp", model: makeScriptedModel({ rules: [] }) }
  return { subagents, main, fixture, toolbox: makeToolbox({ tools: makeControlTools(subagents, main) }) }
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
      assert.deepStrictEqual(yield* subagents.takeAnnouncements("main"), [])
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
