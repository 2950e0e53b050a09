import { assert, describe, it } from "@effect/vitest"
import { Usage } from "@dsh/core"
import { LanguageModel, LlmError } from "@dsh/llm"
import { MemorySessionStore } from "@dsh/session"
import { Effect, Stream } from "effect"
import { Subagents, SubagentTree, type Vocabulary } from "../src/index.ts"
import { Fixtures } from "../src/testing.ts"

/**
 * Which model a child runs with: the call's override, the agent type's `model`, the tree's
 * default for children, the parent's; specs that do not resolve are skipped with a note; the
 * choice, the reasoning effort and the cost are recorded.
 */
const modelNamed = (spec: string) => {
  const colon = spec.indexOf(":")
  return LanguageModel.make({ provider: spec.slice(0, colon), model: spec.slice(colon + 1), stream: () => Stream.empty })
}
const parentModel = modelNamed("test:parent")
/** Resolves `test:*` and the alias `cheap`; anything else is unknown. */
const resolve = (spec: string) =>
  spec === "cheap" ? Effect.succeed(modelNamed("test:cheap-1"))
    : spec.startsWith("test:") ? Effect.succeed(modelNamed(spec))
    : Effect.fail(new LlmError.LlmError({ reason: "Configuration", provider: "model spec", detail: `"${spec}" is not a model dsh can resolve`, retryable: false }))

/** A child that says which model and reasoning effort it got, and spends 1M input tokens on it. */
const seen: Array<{ readonly model: string; readonly thinking: string | undefined }> = []
const echo: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "echo",
  description: "reports its model",
  start: (context: Vocabulary.StartContext) =>
    Effect.gen(function*() {
      seen.push({ model: context.model.spec, thinking: context.request.thinking })
      // Like a real child, it keeps a transcript (continuing one needs it).
      if (context.store !== undefined) yield* Effect.ignore(context.store.transcript.append({ type: "message", message: { role: "user", content: "go" } }))
      yield* context.onEvent({ type: "usage", model: context.model.spec, usage: Usage.make(1_000_000, 0) })
      return { status: "completed", output: context.model.spec, usage: Usage.make(1_000_000, 0) }
    }),
  continue: (context) =>
    Effect.sync(() => {
      seen.push({ model: context.model.spec, thinking: context.request.thinking })
      return { status: "completed", output: `again on ${context.model.spec}`, usage: Usage.make(1, 1) }
    })
}

const setup = (options: { readonly childModel?: string; readonly typeModel?: string } = {}) =>
  Effect.gen(function*() {
    seen.length = 0
    const store = yield* MemorySessionStore.make()
    const session = yield* store.create({ agent: "main", cwd: "/tmp", model: "test:parent" })
    const tree = yield* SubagentTree.make({
      session,
      childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }),
      defaultModel: parentModel,
      resolveModel: resolve,
      childModel: options.childModel
    })
    const subagents = yield* Subagents.make({
      tree,
      providers: [echo],
      types: [Fixtures.testType("worker", "echo", options.typeModel === undefined ? {} : { model: options.typeModel })],
      pricing: (spec) => (spec === "test:cheap-1" ? { inputPerMillion: 0.5, outputPerMillion: 2 } : undefined)
    })
    const run = (model?: string, thinking?: "high") =>
      subagents.spawn({ prompt: "go", description: "go", agent: "worker", model, thinking }, Fixtures.testParent(parentModel))
    return { tree, subagents, run }
  })

describe("a child's model", () => {
  it.effect("follows call > agent type > [subagents] model > parent, and inherit means the parent's", () =>
    Effect.gen(function*() {
      const all = yield* setup({ childModel: "test:default", typeModel: "test:typed" })
      assert.strictEqual((yield* all.run("test:called")).output, "test:called")
      assert.strictEqual((yield* all.run()).output, "test:typed")
      assert.strictEqual((yield* all.run("inherit")).output, "test:parent")
      const noType = yield* setup({ childModel: "test:default" })
      assert.strictEqual((yield* noType.run()).output, "test:default")
      const none = yield* setup()
      assert.strictEqual((yield* none.run()).output, "test:parent")
      const typeInherits = yield* setup({ childModel: "test:default", typeModel: "inherit" })
      assert.strictEqual((yield* typeInherits.run()).output, "test:parent")
    }).pipe(Effect.scoped))

  it.effect("an override that cannot be used falls back to the next in precedence, with a note in the result", () =>
    Effect.gen(function*() {
      const { run } = yield* setup({ childModel: "cheap" })
      const r = yield* run("gemini-3-pro")
      assert.strictEqual(r.status, "completed")
      assert.strictEqual(r.output, "test:cheap-1")
      assert.strictEqual(r.model, "test:cheap-1")
      assert.include(r.notes ?? "", "the call's model \"gemini-3-pro\" cannot be used")
      assert.include(r.notes ?? "", "it ran on test:cheap-1")
      // Every candidate broken: the parent's model, each skip named.
      const broken = yield* setup({ childModel: "nope", typeModel: "bad" })
      const fallback = yield* broken.run("worse")
      assert.strictEqual(fallback.output, "test:parent")
      assert.match(fallback.notes ?? "", /call's model "worse".*agent type's model "bad".*subagents default's model "nope".*it ran on test:parent/)
    }).pipe(Effect.scoped))

  it.effect("the model, the reasoning effort and the cost are recorded; a continued child keeps its model and effort", () =>
    Effect.gen(function*() {
      const { tree, subagents, run } = yield* setup({ childModel: "cheap" })
      const r = yield* run(undefined, "high")
      assert.strictEqual(r.cost, 0.5)
      assert.deepInclude(tree.descriptors.get(r.handle)!, { model: "test:cheap-1", thinking: "high", cost: 0.5 })
      assert.deepStrictEqual(seen, [{ model: "test:cheap-1", thinking: "high" }])
      const again = yield* subagents.send(r.handle, "more", "user")
      assert.strictEqual(again._tag === "Replied" ? again.result.output : "", "again on test:cheap-1")
      assert.deepStrictEqual(seen.at(-1), { model: "test:cheap-1", thinking: "high" })
      // Unpriced model calls have no cost.
      const parentRun = yield* run("inherit")
      assert.isUndefined(parentRun.cost)
    }).pipe(Effect.scoped))
})
