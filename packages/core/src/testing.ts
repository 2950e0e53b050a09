/**
 * @dsh/core/testing: running Effect tests from any test framework. The exported conformance
 * suites of the dsh packages use it, so they need `vitest` alone, not `@effect/vitest`.
 */
import { Effect, type Scope } from "effect"
import { TestClock } from "effect/testing"

/** A test runner's `it`: a name, a body returning a promise, an optional timeout. */
export type TestFn = (name: string, body: () => Promise<void>, timeout?: number) => void

/**
 * `it.effect` and `it.live` over a plain `it`: the test's Effect runs scoped, under the
 * `TestClock` (`effect`: sleeps wait for `TestClock.adjust`) or the real clock (`live`).
 */
export const effectTests = (it: TestFn) => ({
  effect: <E>(name: string, body: () => Effect.Effect<unknown, E, Scope.Scope>, timeout?: number) =>
    it(name, () => Effect.runPromise(Effect.scoped(body()).pipe(Effect.provide(TestClock.layer()), Effect.asVoid)), timeout),
  live: <E>(name: string, body: () => Effect.Effect<unknown, E, Scope.Scope>, timeout?: number) =>
    it(name, () => Effect.runPromise(Effect.scoped(body()).pipe(Effect.asVoid)), timeout)
})
