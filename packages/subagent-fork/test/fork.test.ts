import { assert, describe, it } from "@effect/vitest"
import type { AgentDefinition } from "@dsh/agent"
import type { Message } from "@dsh/core"
import { makeScriptedModel, type Script } from "@dsh/llm-scripted"
import { SessionStore } from "@dsh/session"
import { MemorySessionStore } from "@dsh/session/testing"
import { makeSubagents, makeSubagentTree, type ParentInfo } from "@dsh/subagent"
import { conformanceChecks, conformanceScript } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { FORK_NOTICE, ForkProvider, forkSeed } from "../src/index.ts"

const fork: AgentDefinition = { name: "fork", description: "fork", systemPrompt: "", override: false, scope: "builtin", source: "builtin:fork" }
const history: Array<Message> = [
  { role: "user", content: "earlier question" },
  { role: "assistant", content: "earlier answer" },
  { role: "user", content: "now delegate" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }, { id: "c2", name: "Read", arguments: "{}" }] },
  { role: "tool", toolCallId: "c2", name: "Read", content: "in-flight result" }
]

const env = Effect.gen(function*() {
  const store = yield* SessionStore
  const session = yield* store.create({ agent: "agent", cwd: "/tmp", model: "scripted" })
  const model = makeScriptedModel(conformanceScript as unknown as Script)
  const tree = yield* makeSubagentTree({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "unused" }) })
  const subagents = yield* makeSubagents({ tree, providers: [ForkProvider], types: [{ name: "fork", description: "fork", provider: "fork", definition: fork }] })
  const parent: ParentInfo = { handle: "main", depth: 0, cwd: "/tmp", model, systemPrompt: "parent prompt", history: Effect.succeed(history) }
  return { subagents, parent, agentType: "fork" }
})

describe("forkSeed", () => {
  it("keeps completed turns, closes every call of the delegating message, drops in-flight results, adds the notice", () => {
    const seed = forkSeed(history)
    assert.deepStrictEqual(seed.map((m) => m.role), ["user", "assistant", "user", "assistant", "tool", "tool", "user"])
    assert.notInclude(JSON.stringify(seed), "in-flight result")
    assert.strictEqual(seed.at(-1)?.content, FORK_NOTICE)
  })
})

describe("subagent-fork", () => {
  it.live("refuses a model override with a clear note", () =>
    Effect.gen(function*() {
      const { subagents, parent } = yield* env
      const r = yield* subagents.spawn({ prompt: "x", description: "x", agent: "fork", model: "openai:other" }, parent)
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes ?? "", "keeps its parent's model")
    }).pipe(Effect.scoped, Effect.provide(MemorySessionStore.layer)))

  for (const check of conformanceChecks) {
    it.live(`conformance: ${check.name}`, () =>
      env.pipe(
        Effect.flatMap((e) => check.run(e)),
        Effect.mapError((e) => new Error(typeof e === "string" ? e : e.message)),
        Effect.scoped,
        Effect.provide(MemorySessionStore.layer)
      ))
  }
})
