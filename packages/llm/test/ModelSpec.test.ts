import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, ModelRegistry, ModelSpec } from "../src/index.ts"

/** Two vendors as their adapters describe themselves, and a local one without vendor ids. */
const adapters: ReadonlyArray<ModelSpec.SpecAdapter> = [
  { name: "anthropic", aliases: { sonnet: "anthropic:claude-sonnet-4-5", haiku: "anthropic:claude-haiku-4-5" }, modelIds: { match: /^claude-/, describe: "claude-*" } },
  { name: "openai", modelIds: { match: /^(?:gpt-|o[134](?:$|-))/, describe: "gpt-*, o1, o3, o4-*" } },
  { name: "scripted" }
]
const canonical = (spec: string, aliases?: Record<string, string>) => {
  const r = ModelSpec.canonicalModelSpec(spec, adapters, aliases)
  return r._tag === "Spec" ? r.spec : `unresolved: ${r.reason}`
}

describe("model specs", () => {
  it("adapter:model and an adapter alone stay as they are", () => {
    assert.strictEqual(canonical("openai:gpt-4.1"), "openai:gpt-4.1")
    assert.strictEqual(canonical("openai:ollama/qwen3:8b"), "openai:ollama/qwen3:8b")
    assert.strictEqual(canonical("scripted"), "scripted")
    assert.strictEqual(canonical("  anthropic:claude-opus-4-5 "), "anthropic:claude-opus-4-5")
  })

  it("aliases: the adapters' own, overridden by the registry's, chained", () => {
    assert.strictEqual(canonical("sonnet"), "anthropic:claude-sonnet-4-5")
    assert.strictEqual(canonical("sonnet", { sonnet: "openai:gpt-4.1" }), "openai:gpt-4.1")
    assert.strictEqual(canonical("fast", { fast: "haiku" }), "anthropic:claude-haiku-4-5")
    assert.strictEqual(canonical("fast", { fast: "gpt-5" }), "openai:gpt-5")
    assert.match(canonical("a", { a: "b", b: "a" }), /aliases a → b → a form a cycle/)
  })

  it("bare vendor ids and OpenCode's provider/model map to the adapter that serves them", () => {
    assert.strictEqual(canonical("claude-sonnet-4-5"), "anthropic:claude-sonnet-4-5")
    assert.strictEqual(canonical("gpt-5"), "openai:gpt-5")
    assert.strictEqual(canonical("o3"), "openai:o3")
    assert.strictEqual(canonical("o4-mini"), "openai:o4-mini")
    assert.strictEqual(canonical("anthropic/claude-haiku-4-5"), "anthropic:claude-haiku-4-5")
    assert.strictEqual(canonical("openai/gpt-4.1"), "openai:gpt-4.1")
  })

  it("what no adapter serves is unresolved, saying what would do; inherit is the caller's", () => {
    const unknown = canonical("gemini-3-pro")
    assert.include(unknown, "\"gemini-3-pro\" is not a model dsh can resolve")
    assert.include(unknown, "an alias (haiku, sonnet)")
    assert.include(unknown, "claude-* → anthropic")
    assert.include(canonical("github-copilot/claude-sonnet-4.5"), "no adapter serves provider \"github-copilot\"")
    assert.include(canonical("o2"), "not a model dsh can resolve")
    assert.include(canonical("inherit"), "names the parent's model")
    assert.include(canonical("x", { x: "inherit" }), "ends in \"inherit\"")
    assert.include(canonical(""), "empty")
  })

  it("alias names cannot look like specs", () => {
    assert.isUndefined(ModelSpec.checkAliasName("fast"))
    assert.include(ModelSpec.checkAliasName("a:b") ?? "", "no ':'")
    assert.include(ModelSpec.checkAliasName("a/b") ?? "", "no ':', '/'")
    assert.include(ModelSpec.checkAliasName("inherit") ?? "", "parent's model")
  })
})

describe("ModelRegistry with aliases", () => {
  const fake = (name: string, extra: Partial<ModelRegistry.ModelAdapter> = {}): ModelRegistry.ModelAdapter => ({
    name,
    description: name,
    create: (model) => Effect.succeed(LanguageModel.make({ provider: name, model, stream: () => Stream.empty })),
    ...extra
  })
  const layer = ModelRegistry.layerWith(
    [fake("anthropic", { aliases: { sonnet: "anthropic:claude-sonnet-4-5" }, modelIds: { match: /^claude-/, describe: "claude-*" } }), fake("openai")],
    { aliases: { fast: "openai:gpt-4.1-mini" } }
  )

  it.effect("resolve builds the model an alias, a vendor id or provider/model names", () =>
    Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      const label = (m: { readonly provider: string; readonly model: string }) => `${m.provider}:${m.model}`
      assert.strictEqual(label(yield* registry.resolve("sonnet")), "anthropic:claude-sonnet-4-5")
      assert.strictEqual(label(yield* registry.resolve("fast")), "openai:gpt-4.1-mini")
      assert.strictEqual(label(yield* registry.resolve("claude-haiku-4-5")), "anthropic:claude-haiku-4-5")
      assert.strictEqual(label(yield* registry.resolve("anthropic/claude-opus-4-5")), "anthropic:claude-opus-4-5")
      assert.deepStrictEqual(yield* registry.aliases, { sonnet: "anthropic:claude-sonnet-4-5", fast: "openai:gpt-4.1-mini" })
      const unknown = yield* Effect.flip(registry.resolve("gemini-3-pro"))
      assert.strictEqual(unknown._tag, "LlmError")
      assert.strictEqual(yield* registry.canonical("fast"), "openai:gpt-4.1-mini")
    }).pipe(Effect.provide(layer as Layer.Layer<ModelRegistry.ModelRegistry>)))
})
