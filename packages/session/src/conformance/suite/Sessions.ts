/** Store conformance: a session's life (create, restart, release, state updates) and the store's registry (ids, list, latest). */
import { assert } from "vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { sampleTurnEvents } from "../../testing/Samples.ts"
import { appendAll, appendSynced, counterOf, type Fixture, init, seqs, test } from "./Support.ts"

/** A session is created, survives a restart, is released and updated without losing writes. */
export const sessionLifecycleTests = (fixture: Fixture): void => {
  test.effect("create writes an idle state, keeps extra keys and registers its handle", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      const handle = yield* store.create({ ...init, extra: { dynamicAgents: [{ name: "x" }], status: "running" } })
      const state = yield* handle.readState
      assert.strictEqual(state.id, handle.id, "state.id is the handle's id")
      assert.strictEqual(state.status, "idle", "a new session is idle, whatever `extra` says")
      assert.strictEqual(state.version, 1, "state.version is 1")
      assert.strictEqual(state.createdAt, state.updatedAt, "a new session has updatedAt === createdAt")
      assert.deepStrictEqual(state["dynamicAgents"], [{ name: "x" }], "extra keys are written into the state")
      assert.strictEqual(yield* store.open(handle.id), handle, "open returns the very handle create returned")
    }))

  test.effect("events round-trip across a restart, and seq continues after reopening", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const first = yield* (yield* start).create({ ...init, id: "s1" })
      yield* appendSynced(first.transcript, sampleTurnEvents(1))
      const second = yield* (yield* start).open("s1")
      const read = yield* second.transcript.read
      assert.deepStrictEqual(read.warnings, [], "a clean transcript reads back without warnings")
      assert.deepStrictEqual(read.records.map((r) => r.seq), seqs(6), "seq starts at 1 and counts every persisted event")
      assert.deepStrictEqual(
        read.records.map(({ seq: _s, ts: _t, ...event }) => event),
        sampleTurnEvents(1),
        "records are the appended events, unchanged, plus seq and ts"
      )
      assert.isTrue(
        read.records.every((r) => typeof r.ts === "string" && !Number.isNaN(Date.parse(r.ts))),
        "every record's ts is a parseable time string"
      )
      yield* appendSynced(second.transcript, sampleTurnEvents(2))
      const third = yield* (yield* start).open("s1")
      assert.deepStrictEqual(
        (yield* third.transcript.read).records.map((r) => r.seq),
        seqs(12),
        "seq continues from the last persisted record after a reopen"
      )
    }))

  test.effect("release lets a settled session go and the next open reads it back; a session in use is kept", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      const release = store.release
      if (release === undefined) return
      const first = yield* store.create({ ...init, id: "s1" })
      yield* appendAll(first.transcript, sampleTurnEvents(1))
      yield* first.updateState((s) => ({ ...s, counter: 1 }))
      const child = yield* first.child("coder-1")
      yield* appendAll(child.transcript, sampleTurnEvents(1))
      yield* child.writeMeta({ status: "completed" })
      yield* first.transcript.sync
      // In use here (the lease held): kept, so every user still shares one handle.
      yield* Effect.scoped(Effect.gen(function*() {
        yield* first.acquire
        yield* release("s1")
        assert.strictEqual(yield* store.open("s1"), first, "a session whose lease this process holds is not let go")
      }))
      yield* release("s1")
      const again = yield* store.open("s1")
      assert.notStrictEqual(again, first, "a released session gets a fresh handle")
      assert.strictEqual(counterOf(yield* again.readState), 1, "its state reads back")
      assert.deepStrictEqual((yield* again.transcript.read).records.map((r) => r.seq), seqs(6), "its transcript reads back")
      const reopened = yield* again.child("coder-1")
      assert.deepStrictEqual(yield* reopened.readMeta, { status: "completed" }, "its children's meta reads back")
      // Continuing it goes on numbering after what is stored, in the session and its children.
      yield* appendAll(again.transcript, sampleTurnEvents(2))
      yield* appendAll(reopened.transcript, sampleTurnEvents(2))
      assert.deepStrictEqual((yield* again.transcript.read).records.map((r) => r.seq), seqs(12), "seq continues after the release")
      assert.deepStrictEqual((yield* reopened.transcript.read).records.map((r) => r.seq), seqs(12), "a child's seq continues after the release")
      // A straggler that kept the old handle still reads what is stored.
      assert.strictEqual(counterOf(yield* first.readState), 1, "the old handle still reads the state")
      yield* release("unknown")
    }))

  test.effect("200 concurrent updateState increments lose none and keep unknown keys", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      const handle = yield* store.create({ ...init, extra: { subagents: { "explore-1": { status: "idle" } } } })
      const created = yield* handle.readState
      yield* TestClock.adjust("1 second")
      yield* Effect.forEach(
        Array.from({ length: 200 }),
        () => handle.updateState((s) => ({ ...s, counter: counterOf(s) + 1 })),
        { concurrency: "unbounded", discard: true }
      )
      const state = yield* handle.readState
      assert.strictEqual(counterOf(state), 200, "updateState is serialized: 200 concurrent increments give 200")
      assert.deepStrictEqual(state["subagents"], { "explore-1": { status: "idle" } }, "keys the update kept are preserved")
      assert.isTrue(state.updatedAt > created.updatedAt, "updateState moves updatedAt forward (from Clock)")
      assert.strictEqual(state.createdAt, created.createdAt, "updateState leaves createdAt alone")
    }))
}

/** Ids are checked, one handle per id, and `list`/`latest` order sessions by time. */
export const sessionRegistryTests = (fixture: Fixture): void => {
  test.effect("open reports unknown and invalid ids; create refuses taken and invalid ids", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      const missing = yield* Effect.flip(store.open("nope"))
      assert.strictEqual(missing.reason, "NotFound", "opening an unknown id fails with NotFound")
      assert.strictEqual(missing.detail, "unknown session \"nope\"", "NotFound's detail names the id")
      assert.strictEqual(missing.message, "unknown session \"nope\"", "NotFound's message is its detail")
      for (const bad of ["../etc", "a/b", "", ".hidden"]) {
        assert.strictEqual((yield* Effect.flip(store.open(bad))).reason, "InvalidId", `open(${JSON.stringify(bad)}) fails with InvalidId`)
        assert.strictEqual(
          (yield* Effect.flip(store.create({ ...init, id: bad }))).reason,
          "InvalidId",
          `create with id ${JSON.stringify(bad)} fails with InvalidId`
        )
      }
      yield* store.create({ ...init, id: "taken" })
      assert.strictEqual(
        (yield* Effect.flip(store.create({ ...init, id: "taken" }))).reason,
        "Exists",
        "creating a taken id fails with Exists"
      )
    }))

  test.effect("open returns one handle per id, even when two opens race", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      yield* (yield* start).create({ ...init, id: "shared" })
      const store = yield* start
      const [a, b] = yield* Effect.all([store.open("shared"), store.open("shared")], { concurrency: 2 })
      assert.strictEqual(a, b, "two concurrent opens of one id return the same handle")
      assert.strictEqual(yield* store.open("shared"), a, "a later open returns that handle too")
    }))

  test.effect("list is newest first by createdAt, then by id", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      assert.deepStrictEqual(yield* store.list, [], "a fresh store lists no sessions")
      yield* store.create({ ...init, id: "oldest" })
      yield* TestClock.adjust("1 minute")
      yield* store.create({ ...init, id: "b-same" })
      yield* store.create({ ...init, id: "a-same" })
      yield* TestClock.adjust("1 minute")
      yield* store.create({ ...init, id: "newest" })
      assert.deepStrictEqual(
        (yield* store.list).map((s) => s.id),
        ["newest", "b-same", "a-same", "oldest"],
        "list is ordered by createdAt descending, ties by id descending"
      )
    }))

  test.effect("latest is the most recently updated session, optionally in one cwd", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      assert.isUndefined(yield* store.latest(), "a fresh store has no latest session")
      const a = yield* store.create({ ...init, id: "a", cwd: "/work/a" })
      yield* TestClock.adjust("1 second")
      yield* store.create({ ...init, id: "b", cwd: "/work/b" })
      yield* TestClock.adjust("1 second")
      yield* store.create({ ...init, id: "c", cwd: "/work/a" })
      assert.strictEqual((yield* store.latest())?.id, "c", "latest is the newest session when none was updated")
      yield* TestClock.adjust("1 second")
      yield* a.updateState((s) => ({ ...s, status: "completed" }))
      assert.strictEqual(yield* store.latest(), a, "latest is the most recently updated session, as its registered handle")
      assert.strictEqual((yield* store.latest({ cwd: "/work/b" }))?.id, "b", "latest({cwd}) only considers that cwd")
      assert.strictEqual((yield* store.latest({ cwd: "/work/a" }))?.id, "a", "latest({cwd}) picks the most recently updated in that cwd")
      assert.isUndefined(yield* store.latest({ cwd: "/elsewhere" }), "latest({cwd}) is undefined for a cwd without sessions")
    }))
}
