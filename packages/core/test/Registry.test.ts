import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Registry } from "../src/index.ts"

describe("makeRegistry", () => {
  it.effect("a scoped registration is removed when its scope closes", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make<number>("provider")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* registry.register("spawn", 1)
        assert.strictEqual(yield* registry.get("spawn"), 1)
      }))
      assert.deepStrictEqual(yield* registry.names, [])
    }))

  it.effect("a duplicate name is a typed error and keeps the first value", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make<number>("provider")
      yield* registry.registerPermanent("spawn", 1)
      const exit = yield* Effect.exit(registry.registerPermanent("spawn", 2))
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(registry.registerPermanent("spawn", 3))
      assert.instanceOf(error, Registry.RegistryError)
      assert.strictEqual(error.reason, "DuplicateName")
      assert.strictEqual(yield* registry.get("spawn"), 1)
    }))

  it.effect("a miss lists what is available", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make<number>("provider")
      yield* registry.registerPermanent("spawn", 1)
      yield* registry.registerPermanent("fork", 2)
      const error = yield* Effect.flip(registry.get("acp"))
      assert.strictEqual(error.reason, "NotFound")
      assert.deepStrictEqual(error.available, ["fork", "spawn"])
      assert.include(error.message, "available: fork, spawn")
    }))
})
