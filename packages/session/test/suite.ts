/**
 * The behaviour every `SessionStore` must show, written once and run against each store.
 * A fixture's `start` builds a new store over the same backing data: calling it again is
 * how a test simulates a process restart.
 */
import type { AgentEvent } from "@dsh/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { TestClock } from "effect/testing"
import type { SessionState, SessionStoreShape } from "../src/index.ts"

export interface StoreFixture {
  /** A new store over the fixture's backing data; it lives as long as the test's scope. */
  readonly start: Effect.Effect<SessionStoreShape, never, Scope.Scope>
}

export const init = { agent: "coder", cwd: "/work/a", model: "scripted" }

/** One scripted turn's persisted events (the mix the benchmark uses, shortened). */
export const turnEvents = (turn: number): ReadonlyArray<AgentEvent> => [
  { type: "turn-start", turn, prompt: `prompt ${turn}` },
  { type: "step-start", turn, step: 1 },
  { type: "message", message: { role: "user", content: `prompt ${turn}` } },
  { type: "tool-call", id: `call-${turn}`, name: "Read", input: "{\"path\":\"README.md\"}" },
  { type: "tool-result", id: `call-${turn}`, name: "Read", output: "# dsh", isError: false, durationMs: 3 },
  {
    type: "turn-end",
    turn,
    status: "completed",
    result: "done",
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    durationMs: 40
  }
]

const counterOf = (state: SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

const appendAll = (transcript: { append: (e: AgentEvent) => Effect.Effect<void, unknown> }, events: ReadonlyArray<AgentEvent>) =>
  Effect.forEach(events, (e) => transcript.append(e), { discard: true })

export const sessionStoreSuite = (name: string, fixture: Effect.Effect<StoreFixture, never, Scope.Scope>) =>
  describe(name, () => {
    it.effect("create writes an idle state, keeps extra keys and registers its handle", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        const handle = yield* store.create({ ...init, extra: { dynamicAgents: [{ name: "x" }], status: "running" } })
        const state = yield* handle.readState
        assert.strictEqual(state.id, handle.id)
        assert.strictEqual(state.status, "idle")
        assert.strictEqual(state.version, 1)
        assert.strictEqual(state.createdAt, state.updatedAt)
        assert.deepStrictEqual(state["dynamicAgents"], [{ name: "x" }])
        assert.strictEqual(yield* store.open(handle.id), handle)
      }))

    it.effect("events round-trip across a restart, and seq continues after reopening", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const first = yield* (yield* start).create({ ...init, id: "s1" })
        yield* appendAll(first.transcript, turnEvents(1))
        yield* first.transcript.sync
        const second = yield* (yield* start).open("s1")
        const read = yield* second.transcript.read
        assert.deepStrictEqual(read.warnings, [])
        assert.deepStrictEqual(read.records.map((r) => r.seq), [1, 2, 3, 4, 5, 6])
        assert.deepStrictEqual(read.records.map(({ seq: _s, ts: _t, ...event }) => event), turnEvents(1))
        assert.isTrue(read.records.every((r) => typeof r.ts === "string" && !Number.isNaN(Date.parse(r.ts))))
        yield* appendAll(second.transcript, turnEvents(2))
        yield* second.transcript.sync
        const third = yield* (yield* start).open("s1")
        assert.deepStrictEqual((yield* third.transcript.read).records.map((r) => r.seq), [...Array(12).keys()].map((i) => i + 1))
      }))

    it.effect("ephemeral text-delta events are not persisted and take no seq", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        const handle = yield* store.create(init)
        yield* handle.transcript.append({ type: "text-delta", text: "hel" })
        yield* handle.transcript.append({ type: "notice", level: "info", message: "a" })
        yield* handle.transcript.append({ type: "text-delta", text: "lo" })
        yield* handle.transcript.append({ type: "notice", level: "info", message: "b" })
        yield* handle.transcript.sync
        const { records } = yield* handle.transcript.read
        assert.deepStrictEqual(records.map((r) => [r.seq, r.type]), [[1, "notice"], [2, "notice"]])
      }))

    it.effect("buffered events reach a restarted store only after sync", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "buffered" })
        yield* appendAll(handle.transcript, turnEvents(1))
        const before = yield* (yield* start).open("buffered")
        assert.deepStrictEqual((yield* before.transcript.read).records, [])
        yield* handle.transcript.sync
        assert.strictEqual((yield* before.transcript.read).records.length, 6)
      }))

    it.effect("open reports unknown and invalid ids; create refuses taken and invalid ids", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        const missing = yield* Effect.flip(store.open("nope"))
        assert.strictEqual(missing.reason, "NotFound")
        assert.strictEqual(missing.detail, "unknown session \"nope\"")
        assert.strictEqual(missing.message, "unknown session \"nope\"")
        for (const bad of ["../etc", "a/b", "", ".hidden"]) {
          assert.strictEqual((yield* Effect.flip(store.open(bad))).reason, "InvalidId")
          assert.strictEqual((yield* Effect.flip(store.create({ ...init, id: bad }))).reason, "InvalidId")
        }
        yield* store.create({ ...init, id: "taken" })
        assert.strictEqual((yield* Effect.flip(store.create({ ...init, id: "taken" }))).reason, "Exists")
      }))

    it.effect("open returns one handle per id, even when two opens race", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        yield* (yield* start).create({ ...init, id: "shared" })
        const store = yield* start
        const [a, b] = yield* Effect.all([store.open("shared"), store.open("shared")], { concurrency: 2 })
        assert.strictEqual(a, b)
        assert.strictEqual(yield* store.open("shared"), a)
      }))

    it.effect("200 concurrent updateState increments lose none and keep unknown keys", () =>
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
        assert.strictEqual(counterOf(state), 200)
        assert.deepStrictEqual(state["subagents"], { "explore-1": { status: "idle" } })
        assert.isTrue(state.updatedAt > created.updatedAt)
        assert.strictEqual(state.createdAt, created.createdAt)
      }))

    it.effect("list is newest first by createdAt, then by id", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        assert.deepStrictEqual(yield* store.list, [])
        yield* store.create({ ...init, id: "oldest" })
        yield* TestClock.adjust("1 minute")
        yield* store.create({ ...init, id: "b-same" })
        yield* store.create({ ...init, id: "a-same" })
        yield* TestClock.adjust("1 minute")
        yield* store.create({ ...init, id: "newest" })
        assert.deepStrictEqual((yield* store.list).map((s) => s.id), ["newest", "b-same", "a-same", "oldest"])
      }))

    it.effect("latest is the most recently updated session, optionally in one cwd", () =>
      Effect.gen(function*() {
        const store = yield* (yield* fixture).start
        assert.isUndefined(yield* store.latest())
        const a = yield* store.create({ ...init, id: "a", cwd: "/work/a" })
        yield* TestClock.adjust("1 second")
        yield* store.create({ ...init, id: "b", cwd: "/work/b" })
        yield* TestClock.adjust("1 second")
        yield* store.create({ ...init, id: "c", cwd: "/work/a" })
        assert.strictEqual((yield* store.latest())?.id, "c")
        yield* TestClock.adjust("1 second")
        yield* a.updateState((s) => ({ ...s, status: "completed" }))
        assert.strictEqual(yield* store.latest(), a)
        assert.strictEqual((yield* store.latest({ cwd: "/work/b" }))?.id, "b")
        assert.strictEqual((yield* store.latest({ cwd: "/work/a" }))?.id, "a")
        assert.isUndefined(yield* store.latest({ cwd: "/elsewhere" }))
      }))

    it.effect("children keep their own transcript and meta across a restart", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "parent" })
        const child = yield* handle.child("explore-1")
        assert.strictEqual(yield* handle.child("explore-1"), child)
        assert.isUndefined(yield* child.readMeta)
        yield* appendAll(child.transcript, turnEvents(1))
        yield* child.transcript.sync
        yield* child.writeMeta({ agent: "explore", provider: "spawn" })
        yield* handle.child("reviewer-2")
        assert.strictEqual((yield* Effect.flip(handle.child("../x"))).reason, "InvalidId")

        const reopened = yield* (yield* start).open("parent")
        assert.deepStrictEqual(yield* reopened.children, ["explore-1", "reviewer-2"])
        const again = yield* reopened.child("explore-1")
        assert.deepStrictEqual(yield* again.readMeta, { agent: "explore", provider: "spawn" })
        assert.deepStrictEqual((yield* again.transcript.read).records.map((r) => r.seq), [1, 2, 3, 4, 5, 6])
        assert.deepStrictEqual((yield* reopened.transcript.read).records, [])
      }))

    it.effect("task records are replaced by run id and all read back", () =>
      Effect.gen(function*() {
        const { start } = yield* fixture
        const handle = yield* (yield* start).create({ ...init, id: "tasks" })
        assert.deepStrictEqual(yield* handle.readTasks, [])
        yield* handle.writeTask("run-1", { runId: "run-1", status: "running" })
        yield* handle.writeTask("run-2", { runId: "run-2", status: "running" })
        yield* handle.writeTask("run-1", { runId: "run-1", status: "completed" })
        assert.strictEqual((yield* Effect.flip(handle.writeTask("../run", {}))).reason, "InvalidId")
        const reopened = yield* (yield* start).open("tasks")
        assert.deepStrictEqual(yield* reopened.readTasks, [
          { runId: "run-1", status: "completed" },
          { runId: "run-2", status: "running" }
        ])
      }))
  })
