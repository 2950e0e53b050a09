/** Store conformance: a session's children, task records and archived children. */
import { assert } from "vitest"
import { Effect } from "effect"
import { sampleTurnEvents } from "../../testing/Samples.ts"
import { appendSynced, type Fixture, init, manyTurns, seqs, sessionWithChild, test } from "./Support.ts"

/** Children and task records are kept per name/run id across a restart. */
export const childTests = (fixture: Fixture): void => {
  test.effect("children keep their own transcript and meta across a restart", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const handle = yield* (yield* start).create({ ...init, id: "parent" })
      const child = yield* handle.child("explore-1")
      assert.strictEqual(yield* handle.child("explore-1"), child, "child(name) returns the same ChildStore each time")
      assert.isUndefined(yield* child.readMeta, "a new child has no meta")
      yield* appendSynced(child.transcript, sampleTurnEvents(1))
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
}

/** Archiving a child compresses it, keeps it readable, restores it on append and frees space. */
export const archiveTests = (fixture: Fixture): void => {
  test.effect("an archived child reads back unchanged, is listed with its sizes and stays archived across a restart", () =>
    Effect.gen(function*() {
      const { start } = yield* fixture
      const { child, handle } = yield* sessionWithChild(yield* start, "arch", "explore-1", manyTurns(40))
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
      const { child, handle } = yield* sessionWithChild(yield* start, "cont", "coder-1", sampleTurnEvents(1))
      yield* handle.archiveChild("coder-1")
      // Continued by another process (after a restart), as `send` to an archived child is.
      const later = yield* (yield* (yield* start).open("cont")).child("coder-1")
      yield* appendSynced(later.transcript, sampleTurnEvents(2))
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
      const { handle } = yield* sessionWithChild(yield* start, "restore", "plan-1", manyTurns(10))
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

  test.effect("footprint counts what a session holds, and archiving shrinks it", () =>
    Effect.gen(function*() {
      const store = yield* (yield* fixture).start
      const handle = yield* store.create(init)
      const empty = yield* handle.footprint
      const child = yield* handle.child("big-1")
      yield* appendSynced(child.transcript, manyTurns(40))
      const full = yield* handle.footprint
      assert.isAbove(full, empty, "a transcript adds to the footprint")
      const archived = yield* handle.archiveChild("big-1")
      const after = yield* handle.footprint
      assert.isBelow(after, full, "archiving frees space")
      assert.approximately(full - after, (archived?.bytes ?? 0) - (archived?.archivedBytes ?? 0), 64, "by about the difference the archive reports")
    }))
}
