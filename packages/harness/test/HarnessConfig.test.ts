import { assert, describe, it } from "@effect/vitest"
import { Archiving, Limits } from "@dsh/subagent"
import { Effect } from "effect"
import { HarnessConfig } from "../src/index.ts"

describe("[subagents] archive_after_minutes", () => {
  it.effect("becomes the trees' SubagentArchiving; absent, an hour", () =>
    Effect.gen(function*() {
      const set = yield* HarnessConfig.decodeHarnessConfig({ subagents: { archive_after_minutes: 15 } }, "config.toml")
      assert.strictEqual(set.archiving.afterMinutes, 15)
      assert.deepStrictEqual(yield* Archiving.SubagentArchiving.pipe(Effect.provide(HarnessConfig.configLayer(set))), { afterMinutes: 15 })
      const never = yield* HarnessConfig.decodeHarnessConfig({ subagents: { archive_after_minutes: 0 } }, "config.toml")
      assert.deepStrictEqual(yield* Archiving.SubagentArchiving.pipe(Effect.provide(HarnessConfig.configLayer(never))), { afterMinutes: 0 })
      const unset = yield* HarnessConfig.decodeHarnessConfig({}, "config.toml")
      assert.deepStrictEqual(yield* Archiving.SubagentArchiving.pipe(Effect.provide(HarnessConfig.configLayer(unset))), { afterMinutes: 60 })
    }))

  it.effect("a value out of range, or not a whole number, is an error naming the key", () =>
    Effect.gen(function*() {
      for (const bad of [-1, 1.5, "60", 525_601]) {
        const error = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ subagents: { archive_after_minutes: bad } }, "config.toml"))
        assert.strictEqual(error.key, "[subagents] archive_after_minutes")
        assert.include(error.message, "it must be an integer from 0 to 525600")
      }
    }))
})

describe("[limits] max_child_output_bytes", () => {
  it.effect("becomes the trees' SubagentLimits.maxChildOutputBytes; absent, 10 MiB; out of range, an error naming the key", () =>
    Effect.gen(function*() {
      const set = yield* HarnessConfig.decodeHarnessConfig({ limits: { max_child_output_bytes: 65_536 } }, "config.toml")
      assert.strictEqual((yield* Limits.SubagentLimits.pipe(Effect.provide(HarnessConfig.configLayer(set)))).maxChildOutputBytes, 65_536)
      const unset = yield* HarnessConfig.decodeHarnessConfig({}, "config.toml")
      assert.strictEqual((yield* Limits.SubagentLimits.pipe(Effect.provide(HarnessConfig.configLayer(unset)))).maxChildOutputBytes, 10 * 1024 * 1024)
      for (const bad of [0, 100, 1.5, "1MB"]) {
        const error = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ limits: { max_child_output_bytes: bad } }, "config.toml"))
        assert.strictEqual(error.key, "[limits] max_child_output_bytes")
      }
    }))
})

describe("[cluster] runner_wait_seconds", () => {
  it.effect("is read as given, unset when absent; out of range is an error naming the key", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* HarnessConfig.decodeHarnessConfig({ cluster: { runner_wait_seconds: 2.5 } }, "config.toml")).cluster.runnerWaitSeconds, 2.5)
      assert.strictEqual((yield* HarnessConfig.decodeHarnessConfig({}, "config.toml")).cluster.runnerWaitSeconds, undefined)
      for (const bad of [-1, "10", 86_401]) {
        const error = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ cluster: { runner_wait_seconds: bad } }, "config.toml"))
        assert.strictEqual(error.key, "[cluster] runner_wait_seconds")
        assert.include(error.message, "it must be a number from 0 to 86400")
      }
    }))
})
