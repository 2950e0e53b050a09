import { assert, describe, it } from "@effect/vitest"
import type { AgentDefinition } from "@dsh/agent"
import type { Messages } from "@dsh/core"
import { LanguageModel } from "@dsh/llm"
import { ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { Subagents, SubagentTree } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { Tool } from "@dsh/tools"
import { Deferred, Effect, Fiber } from "effect"
import { z } from "zod"
import { SpawnProvider } from "../src/index.ts"

const coder: AgentDefinition.AgentDefinition = { name: "coder", description: "d", systemPrompt: "", override: false, scope: "builtin", source: "builtin:coder" }

describe("messages to a running child", () => {
  it.live("are delivered in order at its next step, within its one Activation", () =>
    Effect.gen(function*() {
      const requests: Array<ReadonlyArray<Messages.Message>> = []
      const inTool = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The child calls `work`, which blocks until the test has sent both messages.
      const work = Tool.defineTool({
        name: "work",
        description: "works",
        parameters: z.object({}),
        execute: () => Deferred.succeed(inTool, undefined).pipe(Effect.andThen(Deferred.await(release)), Effect.as("worked"))
      })
      const scripted = ScriptedModel.make({
        rules: [
          { when: { step: 0 }, reply: { toolCalls: [{ name: "work" }] } },
          { when: { step: 1 }, reply: { toolCalls: [{ name: "work" }] } },
          { reply: { text: "done with: {{lastUser}}" } }
        ]
      })
      const model = LanguageModel.make({
        provider: "scripted",
        model: "test",
        stream: (request: LanguageModel.ModelRequest) => {
          requests.push(request.messages)
          return scripted.stream(request)
        }
      })
      const store = yield* SessionStore.SessionStore
      const session = yield* store.create({ agent: "agent", cwd: "/tmp", model: "scripted" })
      const tree = yield* SubagentTree.make({ session, childContext: () => Effect.succeed({ tools: [work], systemPrompt: "" }) })
      const subagents = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types: [{ name: "coder", description: "d", provider: "spawn", definition: coder }] })
      const parent = Fixtures.testParent(model, { cwd: "/tmp" })
      const run = yield* Effect.forkChild(subagents.spawn({ prompt: "start", description: "t", agent: "coder" }, parent))
      yield* Deferred.await(inTool)
      const first = yield* subagents.send("coder-1", "first message", "user")
      const second = yield* subagents.send("coder-1", "second message", "user")
      assert.strictEqual(first._tag, "Queued")
      assert.strictEqual(second._tag, "Queued")
      assert.deepStrictEqual(tree.activations.handles(), ["coder-1"])
      yield* Deferred.succeed(release, undefined)
      const result = yield* Fiber.join(run)
      assert.strictEqual(result.status, "completed")
      // The step after the tool result carries both messages, in the order they were sent.
      const users = (ms: ReadonlyArray<Messages.Message>) => ms.filter((m) => m.role === "user").map((m) => m.content)
      assert.deepStrictEqual(users(requests[1]!), ["start", "first message", "second message"])
      assert.strictEqual(result.output, "done with: second message")
      assert.deepStrictEqual(tree.activations.handles(), [])
    }).pipe(Effect.scoped, Effect.provide(MemorySessionStore.layer)))
})

describe("continuing a child without a session store", () => {
  it.live("keeps its history in memory for as long as the tree lives", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.make({ rules: [{ reply: { text: "I remember: {{users}}" } }] })
      const tree = yield* SubagentTree.make({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
      const subagents = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types: [{ name: "coder", description: "d", provider: "spawn", definition: coder }] })
      const first = yield* subagents.spawn({ prompt: "the first task", description: "t", agent: "coder" }, Fixtures.testParent(model))
      const again = yield* subagents.send(first.handle, "and now?", "user")
      assert.strictEqual(again._tag, "Replied")
      assert.include(again._tag === "Replied" ? again.result.output : "", "the first task | and now?")
    }).pipe(Effect.scoped))
})
