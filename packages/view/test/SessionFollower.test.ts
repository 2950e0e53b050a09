import { Usage } from "@dsh/core"
import { MemorySessionStore } from "@dsh/session"
import type { Records } from "@dsh/subagent"
import { Effect, Exit, Fiber, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { PassThrough } from "node:stream"
import { SessionFollower, SessionWatch } from "../src/index.ts"

const descriptor = (handle: string, status: Records.SubagentDescriptor["status"], tokens = 0): Records.SubagentDescriptor => ({
  handle, agent: "explore", provider: "spawn", parent: "main", depth: 1, status, description: handle, runId: `r-${handle}`,
  createdAt: "2026-11-30T00:00:00.000Z", updatedAt: "2026-11-30T00:00:00.000Z", usage: Usage.make(tokens, 0)
})

describe("followSession", () => {
  it.effect("reads what other processes append, frame by frame, and ends once the owner is gone", () =>
    Effect.gen(function*() {
      const data = MemorySessionStore.makeData()
      // The "other process" that runs the session.
      const owner = yield* MemorySessionStore.make({ data })
      const running = yield* owner.create({ agent: "lead", cwd: "/tmp", model: "scripted", id: "s" })
      const lease = yield* Scope.make()
      yield* running.acquire.pipe(Scope.provide(lease))
      yield* running.transcript.append({ type: "turn-start", turn: 1, prompt: "go" })
      yield* running.transcript.append({ type: "subagent-start", handle: "explore-1", agent: "explore", provider: "spawn", runId: "r-explore-1", background: false, description: "look" })
      yield* running.updateState((s) => ({ ...s, subagents: { "explore-1": descriptor("explore-1", "running") } }))
      const child = yield* running.child("explore-1")
      yield* child.transcript.append({ type: "tool-call", id: "c", name: "Grep", input: "TODO" })

      const watcher = yield* MemorySessionStore.make({ data })
      const frames: Array<SessionFollower.FollowFrame> = []
      const statuses: Array<string> = []
      const fiber = yield* Effect.forkChild(Stream.runForEach(SessionFollower.followSession(yield* watcher.open("s"), { interval: "100 millis" }), (f) =>
        Effect.sync(() => {
          frames.push(f)
          statuses.push(`${f.tree.get("explore-1")?.status}:${f.tree.get("explore-1")?.tool?.name ?? ""}`)
        })))
      yield* Effect.yieldNow
      expect(statuses).toEqual(["running:Grep"])
      expect(frames[0]?.settled).toBe(false)

      yield* child.transcript.append({ type: "tool-result", id: "c", name: "Grep", output: "", isError: false, durationMs: 1 })
      yield* running.transcript.append({ type: "subagent-end", handle: "explore-1", runId: "r-explore-1", status: "completed", usage: Usage.make(5, 5), durationMs: 10, result: "ok" })
      yield* running.updateState((s) => ({ ...s, subagents: { "explore-1": descriptor("explore-1", "completed", 10) } }))
      yield* TestClock.adjust("100 millis")
      expect(statuses.at(-1)).toBe("completed:")
      expect(frames.at(-1)?.applied).toBe(2)
      expect(frames.at(-1)?.settled, "the owner still runs it: the stream goes on").toBe(false)

      // The owner goes: the next look is the last.
      yield* Scope.close(lease, Exit.void)
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fiber)
      expect(frames.at(-1)?.settled).toBe(true)
      expect(frames.at(-1)?.tree.get("explore-1")?.usage.totalTokens).toBe(10)
    }))

  it.effect("a child still recorded as running when nobody owns the session is lost, and the stream ends at once", () =>
    Effect.gen(function*() {
      const store = yield* MemorySessionStore.make()
      const session = yield* store.create({ agent: "lead", cwd: "/tmp", model: "scripted" })
      yield* session.updateState((s) => ({ ...s, subagents: { "coder-1": descriptor("coder-1", "running") } }))
      const frames = yield* Stream.runCollect(SessionFollower.followSession(session))
      expect(frames).toHaveLength(1)
      expect(frames[0]?.settled).toBe(true)
      expect(frames[0]?.tree.get("coder-1")?.status).toBe("lost")
    }))
})

describe("watchSession", () => {
  it.effect("off a terminal: one line per status change, then the final tree and its summary", () =>
    Effect.gen(function*() {
      const store = yield* MemorySessionStore.make()
      const session = yield* store.create({ agent: "lead", cwd: "/tmp", model: "scripted" })
      yield* session.transcript.append({ type: "subagent-start", handle: "coder-1", agent: "coder", provider: "spawn", runId: "r-coder-1", background: false, description: "fix" })
      yield* session.updateState((s) => ({ ...s, subagents: { "coder-1": descriptor("coder-1", "running") } }))
      const lines: Array<string> = []
      yield* SessionWatch.watchSession(session, new PassThrough(), {}, (line) => Effect.sync(() => void lines.push(line)))
      // Nobody owns the session: the child still recorded as running is lost, and the watch ends.
      expect(lines).toContain("coder-1 lost")
      expect(lines.filter((l) => l.startsWith("coder-1 "))).toHaveLength(1)
      expect(lines.some((l) => l.startsWith("└─ coder-1 (explore · spawn)") && l.includes("lost")), "the final tree names it").toBe(true)
      expect(lines.at(-1)).toMatch(/^2 agents: .*1 lost/)
    }))
})

