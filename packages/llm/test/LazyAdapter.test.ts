import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { LanguageModel, LazyAdapter, ModelRegistry } from "../src/index.ts"

const realAdapter: ModelRegistry.ModelAdapter = {
  name: "real",
  description: "the real thing",
  create: (model) => Effect.succeed(LanguageModel.make({ provider: "real", model, stream: () => Stream.empty }))
}

describe("lazyAdapter", () => {
  it.effect("imports the adapter on the first model only, once, and builds models from it", () =>
    Effect.gen(function*() {
      let imports = 0
      const lazy = LazyAdapter.lazyAdapter({
        name: "real",
        description: "the real thing",
        load: async () => {
          imports++
          return realAdapter
        }
      })
      const registry = yield* ModelRegistry.make
      yield* registry.adapters.registerPermanent(lazy.name, lazy)
      assert.strictEqual(imports, 0, "registering does not import")
      assert.deepStrictEqual(yield* registry.adapters.names, ["real"])
      const a = yield* registry.resolve("real:one")
      const b = yield* registry.resolve("real:two")
      assert.strictEqual(imports, 1, "one import for every model")
      assert.deepStrictEqual([a.model, b.model], ["one", "two"])
    }))

  it.effect("keeps the adapter's other fields available before the import", () =>
    Effect.gen(function*() {
      const lazy = LazyAdapter.lazyAdapter({ name: "x", description: "d", load: () => Promise.reject(new Error("not now")) })
      assert.deepStrictEqual([lazy.name, lazy.description], ["x", "d"])
    }))
})
