import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { Effect, Layer, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { type Archiving, ChildRefs, SessionMaintenance, Subagents, SubagentTree } from "../src/index.ts"
import { FixtureProvider, Fixtures } from "../src/testing.ts"

/**
 * Archive and cleanup, on the memory store and the TestClock: the session owner's schedule
 * archives settled children `afterMinutes` after they ended, `cleanup: "delete"` as soon as the
 * outcome was announced, and an archived child stays continuable. `pruneSessions` deletes old
 * sessions and archives due children of the others, never touching a session someone runs.
 */
const model = ScriptedModel.make({ rules: [] })
const main = Fixtures.testParent(model, { cwd: "/tmp" })
const noContext = () => Effect.succeed({ tools: [], systemPrompt: "" })
/**
 * No other process sends requests in these tests: a state stream that never polls, so the
 * TestClock can move by days without running a poll loop millions of times.
 */
const quiet = (session: SessionStore.SessionHandle): SessionStore.SessionHandle => ({ ...session, watchState: Stream.never })

const setup = (options: { readonly archiving?: Archiving.SubagentArchivingShape; readonly data?: MemorySessionStore.Data; readonly reply?: (call: { readonly prompt: string }) => FixtureProvider.FixtureReply } = {}) =>
  Effect.gen(function*() {
    const data = options.data ?? MemorySessionStore.makeData()
    const store = yield* MemorySessionStore.make({ data })
    const existing = [...data.sessions.keys()][0]
    const session = quiet(existing === undefined ? yield* store.create({ agent: "main", cwd: "/tmp", model: "scripted" }) : yield* store.open(existing))
    const fixture = FixtureProvider.make({ reply: options.reply ?? (({ prompt }) => ({ output: `did ${prompt}`, tokens: 3 })) })
    const tree = yield* SubagentTree.make({ session, childContext: noContext, defaultModel: model, archiving: options.archiving })
    const subagents = yield* Subagents.make({ tree, providers: [fixture], types: [Fixtures.testType("coder")] })
    return { data, store, session, tree, subagents, fixture }
  })

/** Lets the tree's fibers run until `condition` holds (no time passes on the TestClock). */
const eventually = (condition: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      if (yield* condition) return
      yield* Effect.yieldNow
    }
    assert.fail("the condition never held")
  })

const archivedNames = (s: { readonly archivedChildren: Effect.Effect<ReadonlyArray<{ readonly name: string }>, unknown> }) =>
  s.archivedChildren.pipe(Effect.map((a) => a.map((x) => x.name)), Effect.orDie)

describe("the owner's archiving schedule", () => {
  it.effect("archives a settled child afterMinutes after it ended, and marks it archived", () =>
    Effect.gen(function*() {
      const { session, tree, subagents } = yield* setup({ archiving: { afterMinutes: 60 } })
      const r = yield* subagents.spawn({ prompt: "work", description: "w", agent: "coder" }, main)
      yield* TestClock.adjust("59 minutes")
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* archivedNames(session), [], "not before the hour is up")
      yield* TestClock.adjust("1 minute")
      yield* eventually(Effect.map(archivedNames(session), (n) => n.includes(r.handle)))
      yield* eventually(Effect.sync(() => tree.descriptors.get(r.handle)?.archivedAt !== undefined))
      const d = tree.descriptors.get(r.handle)!
      assert.isDefined(d.endedAt)
      assert.isDefined(d.startedAt)
      assert.strictEqual(d.status, "completed", "archiving leaves the status alone: it stays listable as it ended")
      const { records } = yield* (yield* session.child(r.handle)).transcript.read
      assert.deepStrictEqual(records.map((x) => x.type), ["message", "message"], "its transcript still reads back, from the archive")
    }).pipe(Effect.scoped))

  it.effect("afterMinutes = 0 never archives by time", () =>
    Effect.gen(function*() {
      const { session, subagents } = yield* setup({ archiving: { afterMinutes: 0 } })
      yield* subagents.spawn({ prompt: "work", description: "w", agent: "coder" }, main)
      yield* TestClock.adjust("30 days")
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* archivedNames(session), [])
    }).pipe(Effect.scoped))

  it.effect("cleanup delete: a foreground child is archived once its result was returned", () =>
    Effect.gen(function*() {
      const { session, subagents, tree } = yield* setup({ archiving: { afterMinutes: 0 } })
      const r = yield* subagents.spawn({ prompt: "work", description: "w", agent: "coder", cleanup: "delete" }, main)
      assert.strictEqual(r.output, "did work", "the parent gets the whole result")
      yield* eventually(Effect.map(archivedNames(session), (n) => n.includes(r.handle)))
      assert.strictEqual(tree.descriptors.get(r.handle)?.cleanup, "delete")
    }).pipe(Effect.scoped))

  it.effect("cleanup delete: a background child is archived only after its announcement was delivered", () =>
    Effect.gen(function*() {
      const { session, subagents, tree } = yield* setup({ archiving: { afterMinutes: 0 } })
      const accepted = yield* subagents.spawnBackground({ prompt: "bg", description: "bg", agent: "coder", cleanup: "delete" }, main)
      yield* eventually(Effect.sync(() => tree.announcements.record(accepted.runId)?.status === "completed"))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(yield* archivedNames(session), [], "not while the outcome waits to be announced")
      const texts = yield* tree.announcements.takeTexts("main")
      assert.include(texts.join("\n"), "did bg", "the announcement carries the result")
      yield* tree.announcements.ack("main")
      yield* eventually(Effect.map(archivedNames(session), (n) => n.includes(accepted.handle)))
    }).pipe(Effect.scoped))

  it.effect("an archived child is continued: its transcript is restored and grows, and it is no longer archived", () =>
    Effect.gen(function*() {
      const { session, subagents, tree, fixture } = yield* setup({ archiving: { afterMinutes: 0 } })
      const r = yield* subagents.spawn({ prompt: "first", description: "w", agent: "coder", cleanup: "delete" }, main)
      yield* eventually(Effect.sync(() => tree.descriptors.get(r.handle)?.archivedAt !== undefined))
      const sent = yield* subagents.send(r.handle, "second", "user")
      assert.strictEqual(sent._tag === "Replied" ? sent.result.output : "", "did second")
      assert.deepStrictEqual(fixture.calls.map((c) => c.kind), ["start", "continue"])
      const { records } = yield* (yield* session.child(r.handle)).transcript.read
      assert.deepStrictEqual(records.map((x) => x.type === "message" ? x.message.content : ""), ["first", "did first", "second", "did second"], "restored, then continued")
      assert.deepStrictEqual(records.map((x) => x.seq), [1, 2, 3, 4])
      // `delete` holds for the continued run too: archived again once it answered.
      yield* eventually(Effect.sync(() => tree.descriptors.get(r.handle)?.archivedAt !== undefined))
    }).pipe(Effect.scoped))

  it.effect("after a restart, children that ended long ago in the earlier process are archived", () =>
    Effect.gen(function*() {
      const data = MemorySessionStore.makeData()
      const handle = yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* setup({ data, archiving: { afterMinutes: 0 } })
        return (yield* first.subagents.spawn({ prompt: "old", description: "w", agent: "coder" }, main)).handle
      }))
      yield* TestClock.adjust("2 hours")
      const second = yield* setup({ data, archiving: { afterMinutes: 60 } })
      yield* eventually(Effect.map(archivedNames(second.session), (n) => n.includes(handle)))
    }).pipe(Effect.scoped))
})

describe("pruneSessions", () => {
  const seed = Effect.gen(function*() {
    const data = MemorySessionStore.makeData()
    const old = yield* Effect.scoped(Effect.gen(function*() {
      const s = yield* setup({ data, archiving: { afterMinutes: 0 } })
      yield* s.subagents.spawn({ prompt: "a", description: "a", agent: "coder" }, main)
      return s.session.id
    }))
    yield* TestClock.adjust("31 days")
    const store = yield* MemorySessionStore.make({ data })
    const recent = yield* store.create({ agent: "main", cwd: "/tmp", model: "scripted", id: "recent" })
    const tree = yield* SubagentTree.make({ session: quiet(recent), childContext: noContext, defaultModel: model, archiving: { afterMinutes: 0 } })
    const subagents = yield* Subagents.make({ tree, providers: [FixtureProvider.make({ reply: () => ({ output: "x".repeat(4000) }) })], types: [Fixtures.testType("coder")] })
    yield* subagents.spawn({ prompt: "b", description: "b", agent: "coder" }, main)
    yield* TestClock.adjust("2 hours")
    return { data, old, recent: recent.id }
  })
  const provideStore = (data: MemorySessionStore.Data) => Effect.provide(Layer.effect(SessionStore.SessionStore, MemorySessionStore.make({ data })))

  it.effect("a dry run reports what would be freed and changes nothing", () =>
    Effect.gen(function*() {
      const { data, old, recent } = yield* seed
      const summary = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "60 minutes", dryRun: true }).pipe(provideStore(data))
      assert.isTrue(summary.dryRun)
      assert.deepStrictEqual(summary.sessions.map((s) => s.id), [old])
      assert.deepStrictEqual(summary.children.map((c) => [c.session, c.name]), [[recent, "coder-1"]])
      assert.isAbove(summary.freedBytes, 4000 - 200)
      assert.isTrue(data.sessions.has(old), "nothing was deleted")
      assert.isUndefined(data.sessions.get(recent)?.children.get("coder-1")?.archived, "nothing was archived")
    }))

  it.effect("deletes old sessions, archives due children of the others, skips sessions a process runs", () =>
    Effect.gen(function*() {
      const { data, old, recent } = yield* seed
      const runner = yield* MemorySessionStore.make({ data })
      const busy = yield* runner.create({ agent: "main", cwd: "/tmp", model: "scripted", id: "busy" })
      yield* busy.acquire
      yield* TestClock.adjust("40 days")
      const summary = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "60 minutes" }).pipe(provideStore(data))
      assert.deepStrictEqual(summary.sessions.map((s) => s.id).sort(), [old, recent].sort(), "both idle sessions are older than 30 days now")
      assert.deepStrictEqual(summary.skipped.map((s) => s.id), ["busy"], "the session a process runs is left alone")
      assert.include(summary.skipped[0]?.reason ?? "", "running")
      assert.deepStrictEqual([...data.sessions.keys()], ["busy"])
    }))

  it.effect("archives the due children of a kept session and marks them in its state", () =>
    Effect.gen(function*() {
      const { data, recent } = yield* seed
      const summary = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "60 minutes" }).pipe(provideStore(data))
      assert.deepStrictEqual(summary.children.map((c) => c.name), ["coder-1"])
      const state = data.sessions.get(recent)!.state as unknown as { subagents: Record<string, { archivedAt?: string }> }
      assert.isDefined(state.subagents["coder-1"]?.archivedAt)
      assert.isDefined(data.sessions.get(recent)?.children.get("coder-1")?.archived)
      const again = yield* SessionMaintenance.pruneSessions({ olderThan: "30 days", archiveAfter: "60 minutes" }).pipe(provideStore(data))
      assert.deepStrictEqual(again.children, [], "nothing is archived twice")
      assert.strictEqual(again.freedBytes, 0)
    }))
})

describe("resolveChildRef", () => {
  const children = [{ handle: "explore-1" }, { handle: "coder-1" }, { handle: "explore-2" }]
  it("takes a handle or #N, the 1-based place in the list", () => {
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "coder-1"), Result.succeed({ handle: "coder-1" }))
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "#3"), Result.succeed({ handle: "explore-2" }))
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "#1"), Result.succeed({ handle: "explore-1" }))
  })
  it("says what exists when nothing matches", () => {
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "#4"), Result.fail("no subagent #4: #1 to #3 exist"))
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "#0"), Result.fail("no subagent #0: #1 to #3 exist"))
    assert.deepStrictEqual(ChildRefs.resolveChildRef([], "#1"), Result.fail("no subagent #1: there are none"))
    assert.deepStrictEqual(ChildRefs.resolveChildRef(children, "nope"), Result.fail("unknown subagent \"nope\"; known: #1 explore-1, #2 coder-1, #3 explore-2"))
  })
})
