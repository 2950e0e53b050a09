import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, References } from "effect"
import { makeTurn } from "../src/internal/turn.ts"

/** The lane's turn (`internal/turn.ts`): first come, first served, and never lost to an interruption. */
describe("the lane's turn", () => {
  it("a waiter interrupted at any step of queuing (Effect may yield between steps) does not take the turn with it", async () => {
    // A yield after every n operations stops the waiter at each step of `take` in turn; it is
    // interrupted right there, before it runs on.
    for (let n = 1; n <= 40; n++) {
      const turn = makeTurn()
      Effect.runSync(turn.take)
      const stopped = Effect.runFork(turn.take.pipe(Effect.provideService(References.MaxOpsBeforeYield, n)))
      stopped.interruptUnsafe()
      Effect.runSync(turn.release)
      const got = await Effect.runPromise(turn.take.pipe(Effect.timeoutOption("1 second")))
      assert.strictEqual(got._tag, "Some", `the next waiter got the turn (a yield every ${n} operations)`)
    }
  })

  it.live("waiters get the turn in the order they came, passing over one that was interrupted", () =>
    Effect.gen(function*() {
      const turn = makeTurn()
      const order: Array<string> = []
      yield* turn.take
      const waiter = (name: string) => Effect.forkDetach(turn.take.pipe(Effect.andThen(Effect.sync(() => void order.push(name))), Effect.andThen(turn.release)))
      const a = yield* waiter("a")
      const b = yield* waiter("b")
      const c = yield* waiter("c")
      yield* Effect.yieldNow
      yield* Fiber.interrupt(b)
      yield* turn.release
      yield* Fiber.join(a)
      yield* Fiber.join(c)
      assert.deepStrictEqual(order, ["a", "c"])
    }))
})
