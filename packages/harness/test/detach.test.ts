import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Usage } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, MemorySessionStore, SessionStore } from "@dsh/session"
import type { Vocabulary } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Queue } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Harness } from "../src/index.ts"

// The lead delegates in the foreground; a detached call's result says accepted; the
// announcement wakes it for a turn of its own.
const lead: Script.Script = {
  rules: [
    { when: { lastUser: "subagent announcement" }, reply: { text: "announced: {{lastUser|firstLine}}" } },
    { when: { lastUser: "^anything new" }, reply: { text: "nothing new" } },
    { when: { lastUser: "^swarm it", step: 0 }, reply: { toolCalls: [{ name: "swarm", arguments: { agent: "coder", items: ["a", "b"], prompt: "work on {{item}}" } }] } },
    { when: { lastUser: "^continue (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "{{1}}", message: "go deeper" } }] } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "coder", description: "slow task", prompt: "take your time" } }] } },
    { when: { lastTool: "accepted" }, reply: { text: "detached: {{lastTool}}" } },
    { reply: { text: "waited: {{lastTool|firstLine}}" } }
  ]
}

/** A child whose every run (start or continue) waits until the test releases it. */
const gatedChild = () =>
  Effect.gen(function*() {
    const starts = yield* Queue.unbounded<void>()
    const releases = yield* Queue.unbounded<void>()
    const run = (answer: string) =>
      Queue.offer(starts, undefined).pipe(
        Effect.andThen(Queue.take(releases)),
        Effect.as({ status: "completed" as const, output: answer, usage: Usage.emptyUsage })
      )
    const provider: Vocabulary.SubagentProvider = {
      specificationVersion: "v1",
      name: "gated",
      description: "a child that answers when released",
      start: () => run("the slow answer"),
      continue: (context) => run(`continued: ${context.message}`)
    }
    return { started: { await: Queue.take(starts) }, release: { one: Queue.offer(releases, undefined) }, provider }
  })

const hostLayer = (provider: Vocabulary.SubagentProvider, store: Layer.Layer<SessionStore.SessionStore> = MemorySessionStore.layer) =>
  Harness.layer({
    backends: [provider],
    delegatesRunOn: "gated",
    model: "scripted:lead",
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead"), delegates: [Fixtures.testDefinition("coder")] }))
  }).pipe(Layer.provideMerge(Layer.mergeAll(store, ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead } })]))))

const userMessagesOf = (sessionId: string) =>
  Effect.gen(function*() {
    const session = yield* (yield* SessionStore.SessionStore).open(sessionId)
    const { records } = yield* session.transcript.read
    return records.flatMap((r) => (r.type === "message" && r.message.role === "user" ? [r.message.content] : []))
  })

describe("AgentHost.detachChild", () => {
  it.effect("a running foreground child moves to the background: the call returns accepted, the outcome is announced once", () =>
    Effect.gen(function*() {
      const child = yield* gatedChild()
      return yield* Effect.gen(function*() {
        const host = yield* AgentHost.AgentHost
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const leadSaid = yield* Deferred.make<string>()
        const prompt = yield* Effect.forkChild(host.prompt({
          sessionId: id,
          prompt: "delegate the slow task",
          onEvent: (e) => (e.type === "message" && e.message.role === "assistant" && e.message.content.startsWith("detached")
            ? Deferred.succeed(leadSaid, e.message.content).pipe(Effect.asVoid)
            : Effect.void)
        }))
        yield* child.started.await
        assert.deepStrictEqual(yield* host.detachChild!({ sessionId: id, handle: "all" }), ["coder-1"])
        // The lead's call returned at once, while the child still runs.
        const said = yield* Deferred.await(leadSaid)
        assert.include(said, `"status":"accepted"`)
        assert.include(said, `"handle":"coder-1"`)
        assert.strictEqual((yield* host.listChildren(id)).find((c) => c.name === "coder-1")?.status, "running")
        // A second detach finds it in the background already.
        const again = yield* Effect.flip(host.detachChild!({ sessionId: id, handle: "coder-1" }))
        assert.include(again.message, "already runs in the background")
        yield* child.release.one
        const result = yield* Fiber.join(prompt)
        assert.strictEqual(result.status, "completed")
        assert.include(result.result, "announced: [subagent announcement]")
        const announcements = (yield* userMessagesOf(id)).filter((m) => m.includes("[subagent announcement]"))
        assert.strictEqual(announcements.length, 1)
        assert.include(announcements[0]!, "the slow answer")
        // Delivered in the durable record: a restart does not announce it again.
        const session = yield* (yield* SessionStore.SessionStore).open(id)
        const tasks = (yield* session.readTasks) as ReadonlyArray<{ readonly handle: string; readonly delivered: boolean; readonly status: string }>
        assert.deepStrictEqual(tasks.map((t) => [t.handle, t.status, t.delivered]), [["coder-1", "completed", true]])
      }).pipe(Effect.provide(hostLayer(child.provider)))
    }))

  it.effect("refuses what cannot be detached, naming what can", () =>
    Effect.gen(function*() {
      const child = yield* gatedChild()
      return yield* Effect.gen(function*() {
        const host = yield* AgentHost.AgentHost
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const prompt = yield* Effect.forkChild(host.prompt({ sessionId: id, prompt: "delegate" }))
        yield* child.started.await
        const missing = yield* Effect.flip(host.detachChild!({ sessionId: id, handle: "nobody-1" }))
        assert.strictEqual(missing.reason, "NotFound")
        assert.strictEqual(missing.message, `no child is named "nobody-1"; yours: coder-1`)
        const other = yield* Effect.flip(host.detachChild!({ sessionId: "19700101T000000-00000000", handle: "coder-1" }))
        assert.include(other.message, "is not running in this process; nothing to detach")
        yield* child.release.one
        const result = yield* Fiber.join(prompt)
        // Never detached: the lead waited for the result.
        assert.include(result.result, "waited: the slow answer")
      }).pipe(Effect.provide(hostLayer(child.provider)))
    }))

  it("a detached child's outcome survives the process: the next process announces it once, the one after not again", () =>
    Effect.gen(function*() {
      const store = FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-detach-restart-")) })
      const first = yield* gatedChild()
      const id = yield* Effect.gen(function*() {
        const host = yield* AgentHost.AgentHost
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const leadSaid = yield* Deferred.make<void>()
        const prompt = yield* Effect.forkChild(host.prompt({
          sessionId: id,
          prompt: "delegate the slow task",
          onEvent: (e) => (e.type === "message" && e.message.role === "assistant" && e.message.content.startsWith("detached") ? Deferred.succeed(leadSaid, undefined).pipe(Effect.asVoid) : Effect.void)
        }))
        yield* first.started.await
        yield* host.detachChild!({ sessionId: id, handle: "coder-1" })
        yield* Deferred.await(leadSaid)
        // The process goes away while the lead waits for its detached child: the child is
        // stopped and its outcome recorded, never handed to the lead.
        yield* Fiber.interrupt(prompt)
        return id
      }).pipe(Effect.scoped, Effect.provide(hostLayer(first.provider, store)))

      const second = yield* gatedChild()
      const next = (prompt: string) =>
        Effect.gen(function*() {
          const host = yield* AgentHost.AgentHost
          return (yield* host.prompt({ sessionId: id, prompt })).result
        }).pipe(Effect.scoped, Effect.provide(hostLayer(second.provider, store)))
      assert.match(yield* next("anything new?"), /^announced: \[subagent announcement\]/)
      assert.strictEqual(yield* next("anything new now?"), "nothing new")
      const announcements = yield* userMessagesOf(id).pipe(Effect.map((ms) => ms.filter((m) => m.includes("[subagent announcement]"))), Effect.provide(store))
      assert.strictEqual(announcements.length, 1)
      assert.include(announcements[0]!, "Handle: coder-1")
    }))

  it("a foreground send_message continuing a child can be detached too", () =>
    Effect.gen(function*() {
      const child = yield* gatedChild()
      return yield* Effect.gen(function*() {
        const host = yield* AgentHost.AgentHost
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const first = yield* Effect.forkChild(host.prompt({ sessionId: id, prompt: "delegate the slow task" }))
        yield* child.started.await
        yield* child.release.one
        assert.include((yield* Fiber.join(first)).result, "waited: the slow answer")
        const leadSaid = yield* Deferred.make<string>()
        const again = yield* Effect.forkChild(host.prompt({
          sessionId: id,
          prompt: "continue coder-1",
          onEvent: (e) => (e.type === "message" && e.message.role === "assistant" && e.message.content.startsWith("detached")
            ? Deferred.succeed(leadSaid, e.message.content).pipe(Effect.asVoid)
            : Effect.void)
        }))
        yield* child.started.await
        assert.deepStrictEqual(yield* host.detachChild!({ sessionId: id, handle: "coder-1" }), ["coder-1"])
        assert.include(yield* Deferred.await(leadSaid), `"handle":"coder-1"`)
        yield* child.release.one
        const result = yield* Fiber.join(again)
        assert.include(result.result, "announced: [subagent announcement]")
        const announcements = (yield* userMessagesOf(id)).filter((m) => m.includes("[subagent announcement]"))
        assert.strictEqual(announcements.length, 1)
        assert.include(announcements[0]!, "continued: go deeper")
      }).pipe(Effect.provide(hostLayer(child.provider)))
    }))

  it("a foreground swarm's items are detached together: the swarm returns accepted rows, each outcome is announced once", () =>
    Effect.gen(function*() {
      const child = yield* gatedChild()
      return yield* Effect.gen(function*() {
        const host = yield* AgentHost.AgentHost
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const leadSaid = yield* Deferred.make<string>()
        const prompt = yield* Effect.forkChild(host.prompt({
          sessionId: id,
          prompt: "swarm it",
          onEvent: (e) => (e.type === "message" && e.message.role === "assistant" && e.message.content.startsWith("detached")
            ? Deferred.succeed(leadSaid, e.message.content).pipe(Effect.asVoid)
            : Effect.void)
        }))
        yield* child.started.await
        yield* child.started.await
        assert.deepStrictEqual([...(yield* host.detachChild!({ sessionId: id, handle: "all" }))].sort(), ["coder-1", "coder-2"])
        const said = yield* Deferred.await(leadSaid)
        assert.match(said, /coder-1 .*accepted/)
        assert.match(said, /coder-2 .*accepted/)
        yield* child.release.one
        yield* child.release.one
        const result = yield* Fiber.join(prompt)
        assert.strictEqual(result.status, "completed")
        const announced = (yield* userMessagesOf(id)).filter((m) => m.includes("[subagent announcement]")).join("\n")
        assert.strictEqual(announced.split("Handle: coder-1").length - 1, 1)
        assert.strictEqual(announced.split("Handle: coder-2").length - 1, 1)
      }).pipe(Effect.provide(hostLayer(child.provider)))
    }))
})
