import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FileSessionStore, MemorySessionStore, SessionError, SessionStore } from "../src/index.ts"
import { Samples } from "../src/conformance.ts"

// `modifyState` hands each caller the value computed from the state that was written: with
// concurrent callers in one group commit, every caller gets its own number and none is lost.
const counterOf = (s: SessionStore.SessionState) => (typeof s.counter === "number" ? s.counter : 0)

const numbersHandedOut = (store: SessionStore.SessionStoreShape) =>
  Effect.gen(function*() {
    const handle = yield* store.create(Samples.sampleSession)
    const got = yield* Effect.forEach(
      Array.from({ length: 40 }, (_, i) => i),
      () => SessionStore.modifyState(handle, (s) => [counterOf(s) + 1, { ...s, counter: counterOf(s) + 1 }] as const),
      { concurrency: "unbounded" }
    )
    return { got: [...got].sort((a, b) => a - b), stored: counterOf(yield* handle.readState) }
  })

const expected = Array.from({ length: 40 }, (_, i) => i + 1)

describe("SessionStore.modifyState", () => {
  it.effect("file store: 40 concurrent callers get 1..40, each once, and the state holds 40", () =>
    Effect.gen(function*() {
      const home = yield* Effect.acquireRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-modify-"))),
        (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )
      const { got, stored } = yield* numbersHandedOut(yield* FileSessionStore.make({ home }))
      assert.deepStrictEqual(got, expected)
      assert.strictEqual(stored, 40)
    }).pipe(Effect.scoped))

  it.effect("memory store: the same", () =>
    Effect.gen(function*() {
      const { got, stored } = yield* numbersHandedOut(yield* MemorySessionStore.make())
      assert.deepStrictEqual(got, expected)
      assert.strictEqual(stored, 40)
    }))

  it.effect("a failed update fails the caller and hands out nothing", () =>
    Effect.gen(function*() {
      const state = yield* (yield* (yield* MemorySessionStore.make()).create(Samples.sampleSession)).readState
      // A store whose write fails after calling the function (the disk filled up).
      const failing: Pick<SessionStore.SessionHandle, "updateState"> = {
        updateState: (f) => Effect.andThen(Effect.sync(() => f(state)), Effect.fail(new SessionError.SessionError({ reason: "Io", detail: "disk full" })))
      }
      const result = yield* Effect.result(SessionStore.modifyState(failing, (s) => [counterOf(s), s] as const))
      assert.strictEqual(result._tag === "Failure" ? result.failure.message : "handed out a value", "disk full")
    }))
})
