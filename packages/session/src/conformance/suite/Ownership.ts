/** Store conformance: the lease, one owning process per session, and what it refuses others. */
import { assert } from "vitest"
import { Effect, Exit, Scope } from "effect"
import { sampleTurnEvents } from "../../testing/Samples.ts"
import { appendAll, type Fixture, init, sessionWithChild, test } from "./Support.ts"

/** The lease is exclusive across stores and shared within one; archive and remove respect it. */
export const ownershipTests = (fixture: Fixture): void => {
  test.effect("archiving is the owner's: refused while another process holds the lease", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const { handle: owner } = yield* sessionWithChild(yield* start, "busy", "explore-1", sampleTurnEvents(1))
      yield* owner.acquire
      const other = yield* (yield* start).open("busy")
      assert.strictEqual((yield* Effect.flip(other.archiveChild("explore-1"))).reason, "Owned", "another process may not archive")
      assert.isDefined(yield* other.archiveChild("explore-1", { dryRun: true }), "a dry run only reads, so it may")
      assert.isDefined(yield* owner.archiveChild("explore-1"), "the owner archives (its lease is shared)")
    }))

  test.effect("remove deletes a session, and refuses while a process runs it", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const store = yield* start
      const handle = yield* store.create({ ...init, id: "doomed" })
      yield* store.create({ ...init, id: "kept" })
      yield* appendAll(handle.transcript, sampleTurnEvents(1))
      yield* (yield* handle.child("x-1")).transcript.append({ type: "notice", level: "info", message: "child" })
      const other = yield* start
      const scope = yield* Scope.make()
      yield* handle.acquire.pipe(Scope.provide(scope))
      assert.strictEqual((yield* Effect.flip(other.remove("doomed"))).reason, "Owned", "a session with a live owner is not removed")
      yield* Scope.close(scope, Exit.void)
      yield* other.remove("doomed")
      assert.deepStrictEqual((yield* other.list).map((s) => s.id), ["kept"], "a removed session is not listed")
      assert.strictEqual((yield* Effect.flip((yield* start).open("doomed"))).reason, "NotFound", "nor can it be opened")
      assert.strictEqual((yield* Effect.flip(other.remove("doomed"))).reason, "NotFound", "removing it again: NotFound")
    }))

  test.effect("one process owns a session: the lease is exclusive across stores, shared within one, visible to readers", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const first = yield* (yield* start).create({ ...init, id: "leased" })
      const other = yield* (yield* start).open("leased")
      assert.isUndefined(yield* other.owner, "nobody owns a new session")
      const scope = yield* Scope.make()
      const owner = yield* first.acquire.pipe(Scope.provide(scope))
      // The same process may take it again (nested users share it).
      const again = yield* Effect.scoped(first.acquire)
      assert.deepStrictEqual(again, owner, "a second user in the owning process shares the lease")
      const refused = yield* Effect.flip(Effect.scoped(other.acquire))
      assert.strictEqual(refused.reason, "Owned", "another process is refused while the owner holds the lease")
      assert.deepStrictEqual(yield* other.owner, owner, "a reader sees the owner without taking the lease")
      yield* Scope.close(scope, Exit.void)
      assert.isUndefined(yield* other.owner, "released with the owner's scope")
      yield* Effect.scoped(other.acquire)
    }))
}
