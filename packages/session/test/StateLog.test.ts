import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FileSessionStore, type SessionStore } from "../src/index.ts"
import { Samples } from "../src/conformance.ts"
import { changedBetween, withEntries } from "../src/internal/mapLineage.ts"
import { applyStatePatch, applyStatePatches, diffState, type StatePatch } from "../src/internal/statePatch.ts"
import { snapshot } from "../src/internal/state.ts"

const tempHome = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-statelog-"))),
  (home) => Effect.promise(() => rm(home, { recursive: true, force: true }))
)

const sizeOf = (path: string) => Effect.promise(() => stat(path).then((s) => s.size, () => 0))
const inodeOf = (path: string) => Effect.promise(() => stat(path).then((s) => s.ino))
const rawState = (path: string) => Effect.promise(() => readFile(path, "utf8").then((t) => JSON.parse(t) as Record<string, unknown>))

/** A record the size of a child descriptor. */
const record = (i: number, status: string) => ({ handle: `explore-${i}`, agent: "explore", status, description: "x".repeat(200), usage: { input: i, output: i } })

const withChild = (i: number, status: string) => (s: SessionStore.SessionState): SessionStore.SessionState => ({
  ...s,
  subagents: { ...(s.subagents as Record<string, unknown> | undefined), [`explore-${i}`]: record(i, status) }
})

describe("FileSessionStore state change log (state.changes.jsonl)", () => {
  it.effect("an update appends what changed, not the whole state: one child's record among 200", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const store = yield* FileSessionStore.make({ home })
      const session = yield* store.create({ ...Samples.sampleSession, id: "many" })
      const dir = join(home, "sessions", "many")
      // 200 children recorded, then folded into state.json by giving up the lease.
      yield* Effect.scoped(session.acquire.pipe(Effect.andThen(session.updateState((s) => {
        let next = s
        for (let i = 0; i < 200; i++) next = withChild(i, "running")(next)
        return next
      }))))
      const stateInode = yield* inodeOf(join(dir, "state.json"))
      const before = yield* sizeOf(join(dir, "state.changes.jsonl"))
      yield* session.updateState(withChild(17, "completed"))
      const grown = (yield* sizeOf(join(dir, "state.changes.jsonl"))) - before
      assert.isAbove(grown, 0)
      assert.isBelow(grown, 600, "one record and a timestamp, not 200 records")
      assert.strictEqual(yield* inodeOf(join(dir, "state.json")), stateInode, "state.json is not rewritten")
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("many")).readState
      assert.strictEqual((reread.subagents as Record<string, { status: string }>)["explore-17"]!.status, "completed")
      assert.strictEqual(Object.keys(reread.subagents as object).length, 200)
    }))

  it.effect("another process's store sees each change as it is appended", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const writer = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "followed" })
      const reader = yield* (yield* FileSessionStore.make({ home })).open("followed")
      for (let i = 0; i < 5; i++) {
        yield* writer.updateState(withChild(i, "running"))
        const seen = yield* reader.readState
        assert.deepStrictEqual(Object.keys(seen.subagents as object).sort(), Array.from({ length: i + 1 }, (_, j) => `explore-${j}`).sort())
      }
    }))

  it.effect("giving up the lease folds the log into state.json: a session at rest is one state file", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "rest" })
      const dir = join(home, "sessions", "rest")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* session.acquire
        yield* session.updateState((s) => ({ ...s, status: "running" }))
        yield* session.updateState(withChild(1, "running"))
        assert.isTrue(existsSync(join(dir, "state.changes.jsonl")))
      }))
      assert.isFalse(existsSync(join(dir, "state.changes.jsonl")), "the log is folded")
      const raw = yield* rawState(join(dir, "state.json"))
      assert.strictEqual(raw.status, "running")
      assert.deepStrictEqual((raw.subagents as Record<string, unknown>)["explore-1"], record(1, "running"))
    }))

  it.effect("the update that ends a run folds the log: a process stopped right after leaves state.json whole", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "ended" })
      const dir = join(home, "sessions", "ended")
      yield* session.updateState((s) => ({ ...s, status: "running" }))
      yield* session.updateState(withChild(1, "cancelled"))
      assert.isTrue(existsSync(join(dir, "state.changes.jsonl")))
      yield* session.updateState((s) => ({ ...s, status: "cancelled" }))
      assert.isFalse(existsSync(join(dir, "state.changes.jsonl")))
      const raw = yield* rawState(join(dir, "state.json"))
      assert.strictEqual(raw.status, "cancelled")
      assert.deepStrictEqual((raw.subagents as Record<string, unknown>)["explore-1"], record(1, "cancelled"))
    }))

  it.effect("a line torn by a crash is skipped, and the next update after it is kept", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "torn" })
      const log = join(home, "sessions", "torn", "state.changes.jsonl")
      yield* session.updateState(withChild(1, "running"))
      yield* Effect.promise(() => appendFile(log, "{\"set\":{\"status\":\"fai"))
      // A process that starts after the crash.
      const after = yield* (yield* FileSessionStore.make({ home })).open("torn")
      assert.strictEqual((yield* after.readState).status, "idle")
      yield* after.updateState(withChild(2, "completed"))
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("torn")).readState
      assert.deepStrictEqual(Object.keys(reread.subagents as object).sort(), ["explore-1", "explore-2"])
      assert.strictEqual(reread.status, "idle")
    }))

  it.effect("a fold cut short after writing state.json (the log still there) reads the same state", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "halfway" })
      const dir = join(home, "sessions", "halfway")
      for (let i = 0; i < 3; i++) yield* session.updateState(withChild(i, "running"))
      yield* session.updateState((s) => {
        const { ["explore-1"]: _gone, ...rest } = s.subagents as Record<string, unknown>
        return { ...s, subagents: rest }
      })
      const merged = yield* session.readState
      // What the fold writes first; the crash comes before the log is removed.
      yield* Effect.promise(() => writeFile(join(dir, "state.json"), JSON.stringify(merged)))
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("halfway")).readState
      assert.deepStrictEqual(reread, merged)
    }))

  it.effect("a log that outgrows the state is folded by the update that would pass it", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "grows" })
      const log = join(home, "sessions", "grows", "state.changes.jsonl")
      let largest = 0
      for (let i = 0; i < 400; i++) {
        yield* session.updateState(withChild(i % 3, i % 2 === 0 ? "running" : "completed"))
        largest = Math.max(largest, yield* sizeOf(log))
      }
      assert.isBelow(largest, 80 * 1024, "folded at 64 KiB (the state is smaller)")
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("grows")).readState
      assert.strictEqual((reread.subagents as Record<string, { status: string }>)["explore-0"]!.status, "completed")
    }))
})

describe("state patches", () => {
  const base = snapshot({
    version: 1, id: "s", agent: "a", cwd: "/", model: "m", createdAt: "t0", updatedAt: "t0", status: "idle",
    subagents: { a: { n: 1 }, b: { n: 2 } }, requests: [1], gone: true
  }) as unknown as SessionStore.SessionState

  it("a patch applied gives the new state; applied twice, the same", () => {
    const next = snapshot({ ...base, status: "running", subagents: { ...(base.subagents as object), b: { n: 3 }, c: { n: 4 } }, requests: [], gone: undefined }) as SessionStore.SessionState
    const withoutA = snapshot({ ...next, subagents: { b: { n: 3 }, c: { n: 4 } } }) as SessionStore.SessionState
    for (const target of [next, withoutA]) {
      const patch = diffState(base, target)!
      assert.deepStrictEqual(applyStatePatch(base, patch), target)
      assert.deepStrictEqual(applyStatePatch(applyStatePatch(base, patch), patch), target)
    }
    const patch = diffState(base, next)!
    assert.deepStrictEqual(Object.keys(patch.entries?.subagents ?? {}).sort(), ["b", "c"], "only the entries that changed")
    assert.deepStrictEqual(patch.unset, ["gone"])
  })

  it("patches applied at once give what applying them one by one gives, sharing what none touched", () => {
    const many = snapshot({ ...base, subagents: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}`, { n: i }])) }) as SessionStore.SessionState
    const steps: Array<(s: SessionStore.SessionState) => SessionStore.SessionState> = [
      (s) => ({ ...s, subagents: { ...(s.subagents as object), c3: { n: 30 } } }),
      (s) => ({ ...s, status: "running", subagents: Object.fromEntries(Object.entries(s.subagents as object).filter(([k]) => k !== "c5")) }),
      (s) => ({ ...s, requests: undefined, subagents: { ...(s.subagents as object), c40: { n: 40 } } }),
      (s) => ({ ...s, subagents: { only: { n: 0 } } }),
      (s) => ({ ...s, subagents: { ...(s.subagents as object), after: { n: 1 } } })
    ]
    const patches: Array<StatePatch> = []
    let state = many
    for (const step of steps) {
      const next = snapshot(step(state)) as SessionStore.SessionState
      patches.push(diffState(state, next)!)
      state = next
    }
    for (let k = 0; k <= patches.length; k++) {
      assert.deepStrictEqual(applyStatePatches(many, patches.slice(0, k)), patches.slice(0, k).reduce(applyStatePatch, many), `the first ${k}`)
    }
    assert.deepStrictEqual(applyStatePatches(many, patches), state)
    const twoChanges = applyStatePatches(many, patches.slice(0, 2))
    assert.isTrue(Object.isFrozen(twoChanges) && Object.isFrozen(twoChanges.subagents))
    assert.strictEqual((twoChanges.subagents as Record<string, unknown>).c7, (many.subagents as Record<string, unknown>).c7, "untouched entries are shared")
  })

  it("a patch read from JSON is frozen where it lands, and the entries it did not touch are shared", () => {
    const patch = JSON.parse(JSON.stringify({ entries: { subagents: { b: { n: 3, deep: { x: [1] } }, c: { n: 4 } } }, drop: { subagents: ["a"] } })) as StatePatch
    const next = applyStatePatch(base, patch)
    const subagents = next.subagents as Record<string, { readonly n: number; readonly deep?: { readonly x: ReadonlyArray<number> } }>
    assert.deepStrictEqual(subagents, { b: { n: 3, deep: { x: [1] } }, c: { n: 4 } })
    assert.isTrue(Object.isFrozen(subagents) && Object.isFrozen(subagents.b) && Object.isFrozen(subagents.b!.deep!.x), "deeply frozen")
    const kept = applyStatePatch(base, { entries: { subagents: { c: { n: 4 } } } })
    assert.strictEqual((kept.subagents as Record<string, unknown>).a, (base.subagents as Record<string, unknown>).a, "untouched entries are shared")
    assert.isTrue(Object.isFrozen(base.subagents) && Object.isFrozen(base), "the state patched is left as it was")
  })

  it("a map made from another by a few entries is compared on those, and says so", () => {
    const children = snapshot(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`c${i}`, { n: i }]))) as Readonly<Record<string, unknown>>
    const many = snapshot({ ...base, subagents: children }) as SessionStore.SessionState
    const written = withEntries(children, { c3: { n: 30 }, c60: { n: 60 }, c4: children.c4 })
    assert.deepStrictEqual([...changedBetween(children, written)!].sort(), ["c3", "c4", "c60"], "the entries set, the unchanged one included")
    const patched = applyStatePatch({ ...many, subagents: written } as SessionStore.SessionState, { entries: { subagents: { c7: { n: 70 } } }, drop: { subagents: ["c9"] } })
    assert.deepStrictEqual([...changedBetween(children, patched.subagents as object)!].sort(), ["c3", "c4", "c60", "c7", "c9"], "across two copies")
    assert.isUndefined(changedBetween(children, snapshot({ ...children, c1: { n: 10 } }) as object), "a map made elsewhere: cannot tell")
    assert.deepStrictEqual(
      diffState(many, patched),
      { entries: { subagents: { c3: { n: 30 }, c60: { n: 60 }, c7: { n: 70 } } }, drop: { subagents: ["c9"] } },
      "only what changed: the entry set to its own value is left out"
    )
    assert.isTrue(Object.isFrozen(written) && Object.isFrozen(written.c3), "frozen with its entries")
  })

  it("no change, no patch", () => {
    assert.isUndefined(diffState(base, base))
    assert.isUndefined(diffState(base, snapshot({ ...base }) as SessionStore.SessionState))
  })
})
