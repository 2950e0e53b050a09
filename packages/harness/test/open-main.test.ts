import { AgentCatalog, AgentHost } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Tool } from "@dsh/tools"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as z from "zod"
import { Harness } from "../src/index.ts"

const fixture = FixtureProvider.make({ name: "fixture", reply: ({ prompt }) => ({ output: `done: ${prompt}` }) })
const layer = Harness.layer({
  backends: [fixture],
  delegatesRunOn: "fixture",
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead", { disallowedTools: ["swarm"] }), delegates: [Fixtures.testDefinition("coder")] }))
}).pipe(Layer.provide(Layer.mergeAll(MemorySessionStore.layer, ModelRegistry.layerWith([ScriptedAdapter.ScriptedAdapter]))))

const extra = Tool.defineTool({ name: "stop", description: "extra", parameters: z.object({}), execute: () => Effect.succeed("stopped") })

describe("AgentHost.openMain", () => {
  it.effect("lends the main agent's toolbox (its policy applied, extra tools added); its calls start children of the session", () =>
    Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: process.cwd() })
      const main = yield* host.openMain!({ sessionId: id, tools: [extra] })
      assert.includeMembers([...main.toolbox.names], ["subagent", "send_message", "list_agents", "wait", "stop"])
      assert.notInclude([...main.toolbox.names], "swarm")
      const answer = yield* main.governed(main.toolbox.execute(
        { id: "c1", name: "subagent", arguments: JSON.stringify({ description: "task", prompt: "the task", agent: "coder" }) },
        { cwd: main.cwd, agent: "main" }
      ))
      assert.include(answer.content, "done: the task")
      assert.isNotTrue(answer.isError)
      const children = yield* host.listChildren(id)
      assert.deepStrictEqual(children.map((c) => [c.name, c.status]), [["coder-1", "completed"]])
      const transcript = yield* main.childTranscript("coder-1")
      assert.isTrue(transcript.some((r) => r.type === "message"))
    }).pipe(Effect.scoped, Effect.provide(layer)))
})
