import { StoreKit, type SessionStore } from "@dsh/session"
import { assert, describe, it } from "vitest"
import type { SubagentDescriptor } from "../src/Records.ts"
import { decodeDescriptors } from "../src/Records.ts"
import { makeRecordMap } from "../src/internal/recordMap.ts"

const descriptor = (handle: string, createdAt: string, status: SubagentDescriptor["status"] = "completed"): SubagentDescriptor => ({
  handle,
  agent: "explore",
  provider: "spawn",
  parent: "main",
  depth: 1,
  status,
  description: `child ${handle}`,
  runId: `run-${handle}`,
  createdAt,
  updatedAt: createdAt,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
})

const stateWith = (subagents: Record<string, unknown>): SessionStore.SessionState =>
  StoreKit.snapshot({ version: 1, id: "s", agent: "main", cwd: "/", model: "m", createdAt: "t", updatedAt: "t", status: "idle", subagents }) as unknown as SessionStore.SessionState

// Stored out of creation order, with one record that does not decode.
const stored = stateWith({
  "explore-3": descriptor("explore-3", "2026-01-03"),
  "explore-1": descriptor("explore-1", "2026-01-01"),
  "broken-1": { handle: "broken-1" },
  "explore-2": descriptor("explore-2", "2026-01-02")
})

/** `state` whose `subagents` map tells which of its entries were read. */
const watched = (state: SessionStore.SessionState) => {
  const read = new Set<string>()
  let listed = 0
  const subagents = new Proxy(state.subagents as object, {
    get: (target, key, receiver) => {
      if (typeof key === "string") read.add(key)
      return Reflect.get(target, key, receiver)
    },
    ownKeys: (target) => {
      listed++
      return Reflect.ownKeys(target)
    }
  })
  return { state: { ...state, subagents } as SessionStore.SessionState, read, listed: () => listed }
}

describe("a descriptor book's records", () => {
  it("a hosting tree's map reads only the records asked for, until it is asked for all", () => {
    const { state, read, listed } = watched(stored)
    const map = makeRecordMap(state, undefined)
    assert.strictEqual(map.get("explore-2")?.description, "child explore-2")
    assert.isUndefined(map.get("broken-1"), "a record that does not decode is not one")
    assert.isUndefined(map.get("toString"), "a name that is not stored is no record")
    assert.deepStrictEqual([...read].sort(), ["broken-1", "explore-2"])
    assert.strictEqual(listed(), 0, "the stored map was not walked")
    assert.deepStrictEqual(map.values().map((d) => d.handle), ["explore-1", "explore-2", "explore-3"])
  })

  it("records set before the whole map is decoded keep the places eager loading gives them", () => {
    const changes = [descriptor("explore-9", "2026-01-09", "running"), { ...descriptor("explore-1", "2026-01-01"), status: "failed" as const }, descriptor("explore-4", "2026-01-04")]
    const lazy = makeRecordMap(stored, undefined)
    const eager = makeRecordMap(stored, decodeDescriptors(stored))
    for (const d of changes) {
      lazy.set(d)
      eager.set(d)
    }
    assert.strictEqual(lazy.get("explore-1")?.status, "failed", "a set record is the one read back")
    assert.deepStrictEqual(lazy.values(), eager.values())
    assert.deepStrictEqual(lazy.values().map((d) => d.handle), ["explore-1", "explore-2", "explore-3", "explore-9", "explore-4"])
  })

  it("a newer state gives back only the records whose stored value changed", () => {
    const map = makeRecordMap(stored, decodeDescriptors(stored))
    const next = StoreKit.applyStatePatch(stored, { entries: { subagents: { "explore-2": { ...descriptor("explore-2", "2026-01-02"), status: "failed" }, "explore-5": descriptor("explore-5", "2026-01-05") } } })
    assert.deepStrictEqual(map.changedIn(next).map((d) => `${d.handle} ${d.status}`), ["explore-2 failed", "explore-5 completed"])
    assert.deepStrictEqual(map.changedIn(next), [], "the same state again: nothing changed")
    assert.deepStrictEqual(map.changedIn(stateWith({ "explore-1": { ...descriptor("explore-1", "2026-01-01") } })).map((d) => d.handle), ["explore-1"], "a value read afresh counts as changed")
  })
})
