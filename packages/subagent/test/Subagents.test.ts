import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Effect, Fiber } from "effect"
import { SubagentError, Subagents, SubagentTree, type Vocabulary } from "../src/index.ts"
import { FixtureProvider, Fixtures } from "../src/testing.ts"

const type = (name: string, provider = "fixture") => Fixtures.testType(name, provider)
const model = ScriptedModel.make({ rules: [] })
const parent: Vocabulary.ParentInfo = Fixtures.testParent(model, { cwd: "/tmp" })
const noContext = () => Effect.succeed({ tools: [], systemPrompt: "" })

describe("Subagents", () => {
  it.effect("a provider registered twice under one name fails with a typed error", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      const subagents = yield* Subagents.make({ tree })
      yield* subagents.register(FixtureProvider.make({ reply: () => ({ output: "" }) }))
      const error = yield* Effect.flip(subagents.register(FixtureProvider.make({ reply: () => ({ output: "" }) })))
      assert.strictEqual(error._tag, "RegistryError")
      assert.strictEqual(error._tag === "RegistryError" && error.reason, "DuplicateName")
    }).pipe(Effect.scoped))

  it.effect("a provider written against another contract version is refused, naming both versions", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      // A third party's provider from a future contract (or plain JavaScript without the field).
      const future = { ...FixtureProvider.make({ name: "future", reply: () => ({ output: "" }) }), specificationVersion: "v2" } as unknown as Vocabulary.SubagentProvider
      const atStart = yield* Effect.flip(Subagents.make({ tree, providers: [future] }))
      assert.strictEqual(atStart._tag, "ProviderVersionError")
      assert.strictEqual(atStart.message, 'subagent provider "future" implements specification v2; this @dsh/subagent supports v1')
      const subagents = yield* Subagents.make({ tree })
      const later = yield* Effect.flip(subagents.register(future))
      assert.strictEqual(later._tag, "ProviderVersionError")
      const unversioned = { ...FixtureProvider.make({ name: "old", reply: () => ({ output: "" }) }), specificationVersion: undefined } as unknown as Vocabulary.SubagentProvider
      assert.include((yield* Effect.flip(subagents.register(unversioned))).message, 'provider "old" implements specification undefined')
      // Nothing refused was registered: a type on it has no backend.
      yield* subagents.register(FixtureProvider.make({ reply: () => ({ output: "ok" }) }))
      assert.deepStrictEqual(yield* subagents.providers.names, ["fixture"])
    }).pipe(Effect.scoped))

  it.effect("an unknown provider name lists the known ones", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      const subagents = yield* Subagents.make({
        tree,
        providers: [FixtureProvider.make({ name: "spawn", reply: () => ({ output: "" }) }), FixtureProvider.make({ name: "fork", reply: () => ({ output: "" }) })]
      })
      const error = yield* Effect.flip(subagents.providers.get("acp"))
      assert.strictEqual(error.reason, "NotFound")
      assert.deepStrictEqual(error.available, ["fork", "spawn"])
    }).pipe(Effect.scoped))

  it.effect("refusals are typed: unknown type, not allowed, missing backend, depth limit, child cap", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext, limits: { maxChildren: 1 } })
      const subagents = yield* Subagents.make({
        tree,
        providers: [FixtureProvider.make({ reply: () => ({ output: "ok" }) })],
        types: [type("explore"), type("coder"), type("remote", "acp")]
      })
      const spawn = (agent: string, p: Vocabulary.ParentInfo = parent) =>
        Effect.flip(subagents.spawn({ prompt: "go", description: "t", agent }, p))
      const unknown = yield* spawn("nobody")
      assert.strictEqual(unknown.reason, "UnknownType")
      assert.include(unknown.message, "available: coder, explore")
      assert.strictEqual((yield* spawn("coder", { ...parent, definition: Fixtures.testDefinition("main", { subagents: ["explore"] }) })).reason, "NotAllowed")
      assert.strictEqual((yield* spawn("remote")).reason, "Unsupported")
      assert.strictEqual((yield* spawn("coder", { ...parent, depth: 2 })).reason, "DepthLimit")
      const ok = yield* subagents.spawn({ prompt: "go", description: "t", agent: "coder" }, parent)
      assert.strictEqual(ok.status, "completed")
      const cap = yield* spawn("coder")
      assert.instanceOf(cap, SubagentError.SubagentError)
      assert.strictEqual(cap.reason, "ChildLimit")
    }).pipe(Effect.scoped))

  it.live("handles are unique across the tree and every result carries one, failures included", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      const subagents = yield* Subagents.make({
        tree,
        providers: [FixtureProvider.make({ reply: ({ prompt }) => (prompt === "fail" ? { crash: "boom" } : { output: prompt }) })],
        types: [type("explore"), type("coder")]
      })
      const results = yield* Effect.forEach(["a", "fail", "b", "c"], (prompt, i) =>
        subagents.spawn({ prompt, description: prompt, agent: i % 2 === 0 ? "explore" : "coder" }, parent), { concurrency: "unbounded" })
      assert.deepStrictEqual(results.map((r) => r.handle), ["explore-1", "coder-1", "explore-2", "coder-2"])
      assert.deepStrictEqual(results.map((r) => r.status), ["completed", "failed", "completed", "completed"])
      assert.include(results[1]?.notes ?? "", "boom")
    }).pipe(Effect.scoped))

  it.live("the lane runs at most maxConcurrent children; the rest wait, visibly queued", () =>
    Effect.gen(function*() {
      let running = 0
      let peak = 0
      const provider = FixtureProvider.make({ reply: () => ({ output: "done", delayMs: 30 }) })
      const counting = {
        ...provider,
        start: (ctx: Parameters<typeof provider.start>[0]) =>
          Effect.acquireUseRelease(
            Effect.sync(() => {
              running++
              peak = Math.max(peak, running)
            }),
            () => provider.start(ctx),
            () => Effect.sync(() => running--)
          )
      }
      const tree = yield* SubagentTree.make({ childContext: noContext, limits: { maxConcurrent: 2 } })
      const subagents = yield* Subagents.make({ tree, providers: [counting], types: [type("coder")] })
      const fiber = yield* Effect.forkChild(Effect.forEach([1, 2, 3, 4, 5], () =>
        subagents.spawn({ prompt: "x", description: "x", agent: "coder" }, parent), { concurrency: "unbounded" }))
      const results = yield* Fiber.join(fiber)
      assert.strictEqual(peak, 2)
      assert.isTrue(results.every((r) => r.status === "completed"))
    }).pipe(Effect.scoped))

  it.live("a child past its timeout ends as timeout and its siblings are unaffected", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      const subagents = yield* Subagents.make({
        tree,
        providers: [FixtureProvider.make({ reply: ({ prompt }) => (prompt === "hang" ? { hang: true } : { output: "fine" }) })],
        types: [type("coder")]
      })
      const [slow, fast] = yield* Effect.all([
        subagents.spawn({ prompt: "hang", description: "h", agent: "coder", timeoutSeconds: 0.2 }, parent),
        subagents.spawn({ prompt: "ok", description: "o", agent: "coder" }, parent)
      ], { concurrency: 2 })
      assert.strictEqual(slow?.status, "timeout")
      assert.strictEqual(fast?.status, "completed")
      assert.strictEqual(tree.descriptors.get(slow.handle)?.status, "timeout")
    }).pipe(Effect.scoped))
})
