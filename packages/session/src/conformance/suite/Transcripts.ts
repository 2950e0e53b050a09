/** Store conformance: what a transcript persists and when another reader sees it. */
import { assert } from "vitest"
import { Effect } from "effect"
import { sampleTurnEvents } from "../../testing/Samples.ts"
import { appendAll, type Fixture, init, test } from "./Support.ts"

/** Ephemeral events are dropped, appends are written through, `readFrom` follows a cursor. */
export const transcriptTests = (fixture: Fixture): void => {
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
}
