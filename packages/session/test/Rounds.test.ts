import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeRounds } from "../src/internal/rounds.ts"

// A group commit on rounds: each caller queues its work, and whoever runs the next round does
// everything queued. What a caller notices: its work is done exactly once, by its own round or
// another's, rounds never overlap, and one round's failure or a waiter's interruption strands
// nobody.
const makeBatcher = () => {
  const rounds = makeRounds()
  const queued: Array<number> = []
  const done = new Set<number>()
  const batches: Array<ReadonlyArray<number>> = []
  let running = 0
  let overlapped = false
  const gate = { open: undefined as Deferred.Deferred<void> | undefined, fail: false }
  const work = (n: number) =>
    Effect.suspend(() => {
      queued.push(n)
      return rounds.unlessDone(() => done.has(n), Effect.gen(function*() {
        running++
        if (running > 1) overlapped = true
        const batch = queued.splice(0)
        if (gate.open !== undefined) yield* Deferred.await(gate.open)
        running--
        if (gate.fail) {
          gate.fail = false
          queued.unshift(...batch)
          return yield* Effect.fail("the round failed")
        }
        batches.push(batch)
        for (const m of batch) done.add(m)
      }))
    })
  return { work, done, batches, gate, overlapped: () => overlapped }
}

describe("rounds", () => {
  it.effect("callers that come while a round runs are done together by the next one, never twice", () =>
    Effect.gen(function*() {
      const b = makeBatcher()
      const gate = yield* Deferred.make<void>()
      b.gate.open = gate
      const first = yield* Effect.forkChild(b.work(0))
      yield* Effect.yieldNow
      const rest = yield* Effect.forkChild(Effect.forEach(Array.from({ length: 200 }, (_, i) => i + 1), b.work, { concurrency: "unbounded" }))
      yield* Effect.yieldNow
      b.gate.open = undefined
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(rest)
      assert.strictEqual(b.done.size, 201)
      assert.deepStrictEqual(b.batches.flat().sort((x, y) => x - y), Array.from({ length: 201 }, (_, i) => i), "each done exactly once")
      assert.isAtMost(b.batches.length, 3, `the 200 waiting shared rounds (${b.batches.map((x) => x.length).join(", ")})`)
      assert.isFalse(b.overlapped(), "no two rounds at once")
    }))

  it.effect("a failed round fails its runner alone; a waiter runs the next round and is done", () =>
    Effect.gen(function*() {
      const b = makeBatcher()
      const gate = yield* Deferred.make<void>()
      b.gate.open = gate
      b.gate.fail = true
      const first = yield* Effect.forkChild(Effect.exit(b.work(1)))
      yield* Effect.yieldNow
      const second = yield* Effect.forkChild(Effect.exit(b.work(2)))
      const interrupted = yield* Effect.forkChild(b.work(3))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(interrupted)
      b.gate.open = undefined
      yield* Deferred.succeed(gate, undefined)
      const [one, two] = [yield* Fiber.join(first), yield* Fiber.join(second)]
      assert.strictEqual(one._tag, "Failure", "the runner of the failed round sees the failure")
      assert.strictEqual(two._tag, "Success", "the waiter ran the next round")
      assert.isTrue(b.done.has(1) && b.done.has(2), "the failed round's work went with the next one")
    }))
})
