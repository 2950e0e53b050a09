import { assert, describe, it } from "@effect/vitest"
import { AgentContext } from "@dsh/harness"
import type { Messages } from "@dsh/core"
import { type Script, ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import type { Vocabulary } from "@dsh/subagent"
import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance } from "@dsh/subagent/testing"
import { LanguageModel } from "@dsh/llm"
import { Effect, Stream } from "effect"
import { ForkProvider, ForkSeed } from "../src/index.ts"

const history: Array<Messages.Message> = [
  { role: "user", content: "earlier question" },
  { role: "assistant", content: "earlier answer" },
  { role: "user", content: "now delegate" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }, { id: "c2", name: "Read", arguments: "{}" }] },
  { role: "tool", toolCallId: "c2", name: "Read", content: "in-flight result" }
]

/** Forks of a parent with a conversation, on the conformance script, in a session of the memory store. */
const env = Effect.gen(function*() {
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted" })
  const model = ScriptedModel.make(Conformance.conformanceScript as unknown as Script.Script)
  const context = yield* AgentContext.make({ backends: [ForkProvider.ForkBackend], model, session, cwd: "/tmp", limits: { maxDepth: 2 } })
  // A fork starts from its parent's conversation: what the `subagent` tool passes from the turn.
  const parent: Vocabulary.ParentInfo = { ...context.parent, systemPrompt: "parent prompt", history: Effect.succeed(history) }
  return { subagents: context.subagents, parent, agentType: "fork" }
}).pipe(Effect.provide(MemorySessionStore.layer))

describe("forkSeed", () => {
  it("keeps completed turns, closes every call of the delegating message, drops in-flight results, adds the notice", () => {
    const seed = ForkSeed.forkSeed(history)
    assert.deepStrictEqual(seed.map((m) => m.role), ["user", "assistant", "user", "assistant", "tool", "tool", "user"])
    assert.notInclude(JSON.stringify(seed), "in-flight result")
    assert.strictEqual(seed.at(-1)?.content, ForkSeed.FORK_NOTICE)
  })
})

const thinking: Array<Messages.Message> = [
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
    const seed = ForkSeed.forkSeed(thinking, { provider: "scripted" })
    assert.deepStrictEqual(seed[1], {
      role: "assistant",
      content: "thought",
      reasoning: [{ type: "reasoning", text: "from the script", provider: "scripted", signature: "scripted" }]
    })
    assert.deepStrictEqual(seed[2], { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: "{}" }] })
    assert.deepStrictEqual(ForkSeed.forkSeed(thinking, { provider: "anthropic" })[2], thinking[2])
  })

  it.live("a fork's model never sees another provider's reasoning from its parent", () =>
    Effect.gen(function*() {
      const session = yield* (yield* SessionStore.SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted" })
      const scripted = ScriptedModel.make({ rules: [], fallback: { text: "done" } })
      const requests: Array<LanguageModel.ModelRequest> = []
      const model = LanguageModel.make({
        provider: scripted.provider,
        model: scripted.model,
        stream: (request) =>
          Stream.suspend(() => {
            requests.push(request)
            return Stream.concat(Stream.make({ type: "warning", message: "an image was dropped" } as const), scripted.stream(request))
          })
      })
      const context = yield* AgentContext.make({ backends: [ForkProvider.ForkBackend], model, session, cwd: "/tmp", limits: { maxDepth: 2 } })
      const parent: Vocabulary.ParentInfo = { ...context.parent, systemPrompt: "parent prompt", history: Effect.succeed(thinking) }
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

SubagentProviderSuite.subagentProviderSuite("fork", env, { continue: true, messages: true, report: true, nesting: true, progress: true })
