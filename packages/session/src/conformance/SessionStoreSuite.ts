/**
 * The behaviour every `SessionStore` must show, written once and run against each store
 * (the file store, the memory store, and any store a user writes). It registers vitest tests;
 * the fixture type and the sample data it uses are in `@dsh/session/testing` (no runner needed).
 */
import type { AgentEvent } from "@dsh/core"
import { effectTests } from "@dsh/core/testing"
import { assert, describe, it } from "vitest"
import { Effect, Exit, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { SessionState, Transcript } from "../SessionStore.ts"
import { sampleSession, type SessionStoreFixture, sampleTurnEvents } from "../testing/Samples.ts"

const test = effectTests(it)

const init = sampleSession

const counterOf = (state: SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

const appendAll = (transcript: Transcript, events: ReadonlyArray<AgentEvent>) =>
  Effect.forEach(events, (e) => transcript.append(e), { discard: true })

const seqs = (n: number, from = 1): Array<number> => Array.from({ length: n }, (_, i) => from + i)

/** `n` turns of sample events: enough text for compression to show. */
const manyTurns = (n: number): ReadonlyArray<AgentEvent> => Array.from({ length: n }, (_, i) => sampleTurnEvents(i + 1)).flat()

/**
 * Registers the store conformance tests under `describe(name)`. Call it once, at the top
 * level of a vitest file: `sessionStoreSuite("MyStore", fixture)`. `fixture` runs once per
 * test, in the test's scope, and must make fresh, empty backing data each time.
 *
 * Gotcha: the tests run under `effectTests(it).effect` (the TestClock), so `Clock` is the `TestClock`: a store must take
 * its timestamps from Effect's `Clock` (not `Date.now()`) for the ordering tests to pass.
 */
export const sessionStoreSuite = (name: string, fixture: Effect.Effect<SessionStoreFixture, unknown, Scope.Scope>): void => {
  describe(name, () => {
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
        yield* appendAll(first.transcript, sampleTurnEvents(1))
        yield* first.transcript.sync
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
        yield* appendAll(second.transcript, sampleTurnEvents(2))
        yield* second.transcript.sync
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

    test.effect("ephemeral text-delta events are not persisted and take no seq", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        const handle = yield* store.create(init)
        yield* handle.transcript.append({ type: "text-delta", text: "hel" })
        yield* handle.transcript.append({ type: "notice", level: "info", message: "a" })
        yield* handle.transcript.append({ type: "text-delta", text: "lo" })
        yield* handle.transcript.append({ type: "notice", level: "info", message: "b" })
        yield* handle.transcript.sync
        const { records } = yield* handle.transcript.read
        assert.deepStrictEqual(
          records.map((r) => [r.seq, r.type]),
          [[1, "notice"], [2, "notice"]],
          "only the two notices are persisted, numbered 1 and 2"
        )
      }))

    test.effect("appends are written through: another store reads each event as soon as it is appended", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "through" })
        const other = yield* (yield* start).open("through")
        const events = sampleTurnEvents(1)
        for (const [i, event] of events.entries()) {
          yield* handle.transcript.append(event)
          assert.strictEqual((yield* other.transcript.read).records.length, i + 1, `after append ${i + 1} another store reads ${i + 1} events, without a sync`)
        }
      }))

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

    test.effect("children keep their own transcript and meta across a restart", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "parent" })
        const child = yield* handle.child("explore-1")
        assert.strictEqual(yield* handle.child("explore-1"), child, "child(name) returns the same ChildStore each time")
        assert.isUndefined(yield* child.readMeta, "a new child has no meta")
        yield* appendAll(child.transcript, sampleTurnEvents(1))
        yield* child.transcript.sync
        yield* child.writeMeta({ agent: "explore", provider: "spawn" })
        yield* handle.child("reviewer-2")
        assert.strictEqual((yield* Effect.flip(handle.child("../x"))).reason, "InvalidId", "an unsafe child name fails with InvalidId")

        const reopened = yield* (yield* start).open("parent")
        assert.deepStrictEqual(yield* reopened.children, ["explore-1", "reviewer-2"], "children lists both children by name after a restart")
        const again = yield* reopened.child("explore-1")
        assert.deepStrictEqual(yield* again.readMeta, { agent: "explore", provider: "spawn" }, "a child's meta survives a restart")
        assert.deepStrictEqual(
          (yield* again.transcript.read).records.map((r) => r.seq),
          seqs(6),
          "a child's synced transcript survives a restart"
        )
        assert.deepStrictEqual((yield* reopened.transcript.read).records, [], "a child's events are not in the parent's transcript")
      }))

    test.effect("task records are replaced by run id and all read back", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "tasks" })
        assert.deepStrictEqual(yield* handle.readTasks, [], "a new session has no task records")
        yield* handle.writeTask("run-1", { runId: "run-1", status: "running" })
        yield* handle.writeTask("run-2", { runId: "run-2", status: "running" })
        yield* handle.writeTask("run-1", { runId: "run-1", status: "completed" })
        assert.strictEqual(
          (yield* Effect.flip(handle.writeTask("../run", {}))).reason,
          "InvalidId",
          "an unsafe run id fails with InvalidId"
        )
        const reopened = yield* (yield* start).open("tasks")
        assert.deepStrictEqual(yield* reopened.readTasks, [
          { runId: "run-1", status: "completed" },
          { runId: "run-2", status: "running" }
        ], "readTasks returns the latest record of each run after a restart")
      }))

    test.effect("an archived child reads back unchanged, is listed with its sizes and stays archived across a restart", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "arch" })
        const child = yield* handle.child("explore-1")
        yield* appendAll(child.transcript, manyTurns(40))
        yield* child.transcript.sync
        yield* child.writeMeta({ agent: "explore" })
        const before = (yield* child.transcript.read).records
        const archived = yield* handle.archiveChild("explore-1")
        assert.isDefined(archived, "a child with a transcript is archived")
        assert.strictEqual(archived?.name, "explore-1")
        assert.isAbove(archived?.bytes ?? 0, 0, "the archive reports the transcript's size")
        assert.isBelow(archived?.archivedBytes ?? Infinity, archived?.bytes ?? 0, "the archive is compressed")
        assert.isFalse(Number.isNaN(Date.parse(archived?.archivedAt ?? "")), "archivedAt is a time")
        assert.deepStrictEqual((yield* child.transcript.read).records, before, "the archived transcript reads back unchanged")
        assert.deepStrictEqual((yield* handle.archivedChildren).map((a) => a.name), ["explore-1"], "archivedChildren lists it")
        assert.isUndefined(yield* handle.archiveChild("explore-1"), "archiving it again has nothing to do")

        const reopened = yield* (yield* start).open("arch")
        assert.deepStrictEqual((yield* reopened.archivedChildren).map((a) => [a.name, a.bytes, a.archivedBytes]), [["explore-1", archived?.bytes, archived?.archivedBytes]], "a restart sees it archived, with the same sizes")
        const again = yield* reopened.child("explore-1")
        assert.deepStrictEqual((yield* again.transcript.read).records, before, "another process reads the archived transcript without restoring it")
        assert.deepStrictEqual(yield* again.readMeta, { agent: "explore" }, "the child's meta is untouched")
        assert.deepStrictEqual(yield* reopened.children, ["explore-1"], "an archived child is still one of the session's children")
        assert.isUndefined(yield* handle.archiveChild("never-ran"), "a child without a transcript has nothing to archive")
      }))

    test.effect("appending to an archived child restores it first: seq continues and nothing is lost", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "cont" })
        const child = yield* handle.child("coder-1")
        yield* appendAll(child.transcript, sampleTurnEvents(1))
        yield* child.transcript.sync
        yield* handle.archiveChild("coder-1")
        // Continued by another process (after a restart), as `send` to an archived child is.
        const later = yield* (yield* (yield* start).open("cont")).child("coder-1")
        yield* appendAll(later.transcript, sampleTurnEvents(2))
        yield* later.transcript.sync
        const read = yield* (yield* (yield* start).open("cont")).child("coder-1").pipe(Effect.flatMap((c) => c.transcript.read))
        assert.deepStrictEqual(read.records.map((r) => r.seq), seqs(12), "the restored records come first and seq continues after them")
        assert.deepStrictEqual(read.records.slice(6).map(({ seq: _s, ts: _t, ...e }) => e), sampleTurnEvents(2), "the new events follow")
        assert.deepStrictEqual(yield* handle.archivedChildren, [], "a restored child is no longer archived")

        // Archived and continued again by the process that archived it.
        yield* handle.archiveChild("coder-1")
        yield* child.transcript.append({ type: "notice", level: "info", message: "back" })
        yield* child.transcript.sync
        assert.deepStrictEqual((yield* child.transcript.read).records.map((r) => r.seq), seqs(13), "the archiving process's own transcript continues after a restore too")
      }))

    test.effect("restoreChild brings an archive back; a dry run reports without changing anything", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "restore" })
        const child = yield* handle.child("plan-1")
        yield* appendAll(child.transcript, manyTurns(10))
        yield* child.transcript.sync
        const dry = yield* handle.archiveChild("plan-1", { dryRun: true })
        assert.isBelow(dry?.archivedBytes ?? Infinity, dry?.bytes ?? 0, "a dry run reports the compressed size")
        assert.deepStrictEqual(yield* handle.archivedChildren, [], "a dry run archives nothing")
        const real = yield* handle.archiveChild("plan-1")
        assert.deepStrictEqual([real?.bytes, real?.archivedBytes], [dry?.bytes, dry?.archivedBytes], "the dry run's figures are the real ones")
        assert.isTrue(yield* handle.restoreChild("plan-1"), "restoreChild restores an archived child")
        assert.isFalse(yield* handle.restoreChild("plan-1"), "restoring a live child does nothing")
        assert.deepStrictEqual(yield* handle.archivedChildren, [])
        assert.deepStrictEqual((yield* (yield* (yield* start).open("restore")).child("plan-1").pipe(Effect.flatMap((c) => c.transcript.read))).records.length, 60, "the restored transcript is whole")
      }))

    test.effect("archiving is the owner's: refused while another process holds the lease", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const owner = yield* (yield* start).create({ ...init, id: "busy" })
        const child = yield* owner.child("explore-1")
        yield* appendAll(child.transcript, sampleTurnEvents(1))
        yield* child.transcript.sync
        yield* owner.acquire
        const other = yield* (yield* start).open("busy")
        assert.strictEqual((yield* Effect.flip(other.archiveChild("explore-1"))).reason, "Owned", "another process may not archive")
        assert.isDefined(yield* other.archiveChild("explore-1", { dryRun: true }), "a dry run only reads, so it may")
        assert.isDefined(yield* owner.archiveChild("explore-1"), "the owner archives (its lease is shared)")
      }))

    test.effect("readFrom returns only what was appended after a cursor", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "follow" })
        const reader = yield* (yield* start).open("follow")
        const first = yield* reader.transcript.readFrom(0)
        assert.deepStrictEqual(first.records, [], "nothing yet")
        yield* appendAll(handle.transcript, sampleTurnEvents(1).slice(0, 2))
        const second = yield* reader.transcript.readFrom(first.cursor)
        assert.deepStrictEqual(second.records.map((r) => r.seq), [1, 2], "the two appended records")
        yield* appendAll(handle.transcript, sampleTurnEvents(1).slice(2))
        const third = yield* reader.transcript.readFrom(second.cursor)
        assert.deepStrictEqual(third.records.map((r) => r.seq), [3, 4, 5, 6], "only the records appended since")
        assert.deepStrictEqual((yield* reader.transcript.readFrom(third.cursor)).records, [], "nothing new: nothing returned")
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

    test.effect("footprint counts what a session holds, and archiving shrinks it", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        const handle = yield* store.create(init)
        const empty = yield* handle.footprint
        const child = yield* handle.child("big-1")
        yield* appendAll(child.transcript, manyTurns(40))
        yield* child.transcript.sync
        const full = yield* handle.footprint
        assert.isAbove(full, empty, "a transcript adds to the footprint")
        const archived = yield* handle.archiveChild("big-1")
        const after = yield* handle.footprint
        assert.isBelow(after, full, "archiving frees space")
        assert.approximately(full - after, (archived?.bytes ?? 0) - (archived?.archivedBytes ?? 0), 64, "by about the difference the archive reports")
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
  })
}
