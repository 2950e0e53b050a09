import { assert, describe, it } from "@effect/vitest"
import { makeAgentContext } from "@dsh/harness"
import type { Message } from "@dsh/core"
import { makeScriptedModel, type Script } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import type { ParentInfo } from "@dsh/subagent"
import { subagentProviderSuite } from "@dsh/subagent/conformance"
import { conformanceScript } from "@dsh/subagent/testing"
import { makeLanguageModel, type ModelRequest } from "@dsh/llm"
import { Effect, Stream } from "effect"
import { FORK_NOTICE, ForkBackend, forkSeed } from "../src/index.ts"

const history: Array<Message> = [
  { role: "user", content: "earlier question" },
  { role: "assistant", content: "earlier answer" },
  { role: "user", content: "now delegate" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }, { id: "c2", name: "Read", arguments: "{}" }] },
  { role: "tool", toolCallId: "c2", name: "Read", content: "in-flight result" }
]

/** Forks of a parent with a conversation, on the conformance script, in a session of the memory store. */
const env = Effect.gen(function*() {
  const session = yield* (yield* SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted" })
  const model = makeScriptedModel(conformanceScript as unknown as Script)
  const context = yield* makeAgentContext({ backends: [ForkBackend], model, session, cwd: "/tmp", limits: { maxDepth: 2 } })
  // A fork starts from its parent's conversation: what the `subagent` tool passes from the turn.
  const parent: ParentInfo = { ...context.parent, systemPrompt: "parent prompt", history: Effect.succeed(history) }
  return { subagents: context.subagents, parent, agentType: "fork" }
}).pipe(Effect.provide(MemorySessionStore.layer))

describe("forkSeed", () => {
  it("keeps completed turns, closes every call of the delegating message, drops in-flight results, adds the notice", () => {
    const seed = forkSeed(history)
    assert.deepStrictEqual(seed.map((m) => m.role), ["user", "assistant", "user", "assistant", "tool", "tool", "user"])
    assert.notInclude(JSON.stringify(seed), "in-flight result")
    assert.strictEqual(seed.at(-1)?.content, FORK_NOTICE)
  })
})

const thinking: Array<Message> = [
  { role: "user", content: "think about it" },
  {
    role: "assistant",
    content: "thought",
    reasoning: [
      { type: "reasoning", text: "from claude", provider: "anthropic", signature: "sig" },
      { type: "reasoning", text: "from the script", provider: "scripted", signature: "scripted" }
    ]
  },
  { role: "assistant", content: "", reasoning: [{ type: "reasoning", text: "only claude", provider: "anthropic" }], toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }] }
]

describe("forkSeed and reasoning", () => {
  it("keeps only the reasoning the fork's provider produced", () => {
    const seed = forkSeed(thinking, { provider: "scripted" })
    assert.deepStrictEqual(seed[1], {
      role: "assistant",
      content: "thought",
      reasoning: [{ type: "reasoning", text: "from the script", provider: "scripted", signature: "scripted" }]
    })
    assert.deepStrictEqual(seed[2], { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }] })
    assert.deepStrictEqual(forkSeed(thinking, { provider: "anthropic" })[2], thinking[2])
  })

  it.live("a fork's model never sees another provider's reasoning from its parent", () =>
    Effect.gen(function*() {
      const session = yield* (yield* SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted" })
      const scripted = makeScriptedModel({ rules: [], fallback: { text: "done" } })
      const requests: Array<ModelRequest> = []
      const model = makeLanguageModel({
        provider: scripted.provider,
        model: scripted.model,
        stream: (request) =>
          Stream.suspend(() => {
            requests.push(request)
            return Stream.concat(Stream.make({ type: "warning", message: "an image was dropped" } as const), scripted.stream(request))
          })
      })
      const context = yield* makeAgentContext({ backends: [ForkBackend], model, session, cwd: "/tmp", limits: { maxDepth: 2 } })
      const parent: ParentInfo = { ...context.parent, systemPrompt: "parent prompt", history: Effect.succeed(thinking) }
      const r = yield* context.subagents.spawn({ prompt: "go", description: "go", agent: "fork" }, parent)
      assert.strictEqual(r.status, "completed")
      // What the child's adapter dropped reaches the parent in the result's notes.
      assert.include(r.notes ?? "", "an image was dropped")
      const seen = JSON.stringify(requests[0]?.messages)
      assert.include(seen, "from the script")
      assert.notInclude(seen, "from claude")
      assert.notInclude(seen, "only claude")
    }).pipe(Effect.provide(MemorySessionStore.layer), Effect.scoped))
})

describe("fork backend", () => {
  it.live("refuses a model override with a clear note", () =>
    Effect.gen(function*() {
      const { subagents, parent } = yield* env
      const r = yield* subagents.spawn({ prompt: "x", description: "x", agent: "fork", model: "openai:other" }, parent)
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes ?? "", "keeps its parent's model")
    }).pipe(Effect.scoped))

})

subagentProviderSuite("fork", env, { continue: true, messages: true, report: true, nesting: true, progress: true })
