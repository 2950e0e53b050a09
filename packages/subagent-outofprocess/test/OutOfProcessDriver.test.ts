import { assert, describe, it } from "@effect/vitest"
import type { Events } from "@dsh/core"
import { Deferred, Effect, Exit, Fiber, Logger, Schema, Scope } from "effect"
import { OutOfProcessDriver } from "../src/index.ts"
import { type Behaviour, fakeBackend, fakeLauncher, FakeError, makeContext, makeJournal, released, until, usage } from "./fakes.ts"

const types = (events: ReadonlyArray<Events.AgentEvent>) => events.map((e) => e.type)

const answer = (output: string, tokens = usage(3, 2)): Behaviour => ({
  _tag: "Answer",
  events: [
    { type: "text-delta", text: output },
    { type: "message", message: { role: "assistant", content: output } }
  ],
  report: { status: "completed", output, usage: tokens }
})

describe("the out-of-process driver", () => {
  it.effect("records the child's events (text deltas only forwarded) and frames the turn", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [answer("done")])).pipe(Effect.provide(fakeLauncher(journal)))
      const outcome = yield* provider.start(yield* makeContext(journal))
      assert.deepStrictEqual(outcome, { status: "completed", output: "done", usage: usage(3, 2), notes: undefined })
      assert.deepStrictEqual(types(journal.forwarded), ["turn-start", "message", "text-delta", "message", "turn-end"])
      assert.deepStrictEqual(types(journal.transcript), ["turn-start", "message", "message", "turn-end"])
      assert.deepInclude(journal.transcript.at(-1), { type: "turn-end", turn: 0, status: "completed", result: "done", usage: usage(3, 2) })
      // Afterwards, in the background: the connection closes first; a child that answered may exit by itself (it does, on stdin's end).
      yield* released(journal)
      assert.deepStrictEqual(journal.steps.slice(-4), ["connection closed", "waited for exit", "stdin ended", "process released"])
      assert.strictEqual(journal.syncs, 1)
    }).pipe(Effect.scoped))

  it.effect("a child that streams its own turns is not framed again", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const backend = fakeBackend(journal, [answer("done")], { turnEvents: "child" })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      yield* provider.start(yield* makeContext(journal))
      assert.deepStrictEqual(types(journal.transcript), ["message"])
    }).pipe(Effect.scoped))

  it.effect("meta.json: starting, then command and cwd, pid and running, agentInfo, session id, how it ended", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [answer("done")])).pipe(Effect.provide(fakeLauncher(journal)))
      yield* provider.start(yield* makeContext(journal))
      const metas = journal.metas
      assert.deepStrictEqual(metas.map((m) => m.status), ["starting", "starting", "running", "running", "running", "completed"])
      assert.deepInclude(metas[0], { handle: "fake-1", runId: "run-1", agent: "fake:agent", provider: "fake", parent: "main", depth: 1, model: "scripted:parent-model" })
      assert.isUndefined(metas[0]!.command)
      assert.deepInclude(metas[1], { command: "fake-agent --model scripted:parent-model", cwd: "/work" })
      assert.strictEqual(metas[2]!.pid, 4242)
      assert.deepStrictEqual(metas[3]!.agentInfo, { name: "fake", version: "1" })
      assert.strictEqual(metas[4]!.sessionId, "s-1")
      const last = metas.at(-1)!
      assert.isString(last.endedAt)
      assert.isUndefined(last.notes)
      assert.deepInclude(last, { command: "fake-agent --model scripted:parent-model", pid: 4242, sessionId: "s-1" })
    }).pipe(Effect.scoped))

  it.effect("the child is asked to use the model the service chose for the run", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      // The service resolved the request's alias; the child gets the canonical spec, not "sonnet".
      assert.strictEqual(OutOfProcessDriver.childModelSpec(yield* makeContext(journal, { model: "sonnet", chosen: "anthropic:claude-sonnet-4-5" })), "anthropic:claude-sonnet-4-5")
      assert.strictEqual(OutOfProcessDriver.childModelSpec(yield* makeContext(journal)), "scripted:parent-model")
    }).pipe(Effect.scoped))

  it.live("interrupted mid-turn: cancel, the child's answer within the grace, then one cleanup", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const behaviour: Behaviour = {
        _tag: "AnswerOnCancel",
        events: [{ type: "text-delta", text: "half" }],
        report: { status: "cancelled", output: "half way", usage: usage(5, 1) }
      }
      const backend = fakeBackend(journal, [behaviour], { cancelGrace: "5 seconds" })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      const context = yield* makeContext(journal)
      const inFlight = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(provider.start({
        ...context,
        onEvent: (event) => Effect.andThen(context.onEvent(event), event.type === "text-delta" ? Deferred.succeed(inFlight, undefined) : Effect.void)
      }))
      yield* Deferred.await(inFlight)
      yield* Fiber.interrupt(fiber)
      yield* released(journal)
      // The child answered the cancel, so its turn was not cut off, and it got its exit grace.
      assert.notInclude(journal.steps, "prompt interrupted")
      assert.deepStrictEqual(journal.steps.slice(-6), ["prompt do the task", "cancel", "connection closed", "waited for exit", "stdin ended", "process released"])
      assert.deepInclude(journal.transcript.at(-1), { type: "turn-end", status: "cancelled", result: "half way", usage: usage(5, 1), error: "cancelled" })
      assert.deepInclude(journal.metas.at(-1), { status: "cancelled", notes: "cancelled" })
      assert.isString(journal.metas.at(-1)!.endedAt)
      assert.strictEqual(journal.syncs, 1)
    }).pipe(Effect.scoped))

  it.live("a child that ignores the cancel has its turn interrupted after the grace, and keeps what it said", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const backend = fakeBackend(journal, [{ _tag: "Hang", events: [{ type: "text-delta", text: "still thinking" }, { type: "usage", model: "m", usage: usage(2, 2) }] }], {
        cancelGrace: "20 millis"
      })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      const context = yield* makeContext(journal)
      const inFlight = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(provider.start({
        ...context,
        onEvent: (event) => Effect.andThen(context.onEvent(event), event.type === "usage" ? Deferred.succeed(inFlight, undefined) : Effect.void)
      }))
      yield* Deferred.await(inFlight)
      yield* Fiber.interrupt(fiber)
      yield* released(journal)
      // No answer: the turn is interrupted and the process stopped without an exit grace.
      const steps = journal.steps.filter((s) => s !== "stdin ended")
      assert.deepStrictEqual(steps.slice(-4), ["cancel", "prompt interrupted", "connection closed", "process released"])
      assert.notInclude(steps, "waited for exit")
      assert.deepInclude(journal.transcript.at(-1), { type: "turn-end", status: "cancelled", result: "still thinking", usage: usage(2, 2) })
      assert.strictEqual(journal.metas.at(-1)!.status, "cancelled")
      assert.strictEqual(journal.syncs, 1)
    }).pipe(Effect.scoped))

  it.effect("a typed error is a failed outcome in the backend's words, with what the child said so far", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const behaviour: Behaviour = {
        _tag: "Fail",
        events: [{ type: "text-delta", text: "Working on it" }, { type: "usage", model: "m", usage: usage(1, 1) }],
        error: new FakeError({ message: "the connection dropped" })
      }
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [behaviour])).pipe(Effect.provide(fakeLauncher(journal)))
      const outcome = yield* provider.start(yield* makeContext(journal))
      assert.deepStrictEqual(outcome, { status: "failed", output: "Working on it", usage: usage(1, 1), notes: "the fake child said: the connection dropped" })
      assert.deepInclude(journal.transcript.at(-1), { type: "turn-end", status: "failed", result: "Working on it", error: "the fake child said: the connection dropped" })
      assert.deepInclude(journal.metas.at(-1), { status: "failed", notes: "the fake child said: the connection dropped" })
      // A child that did not answer gets no exit grace; the process is still released.
      yield* released(journal)
      const steps = journal.steps.filter((s) => s !== "stdin ended")
      assert.deepStrictEqual(steps.slice(-2), ["connection closed", "process released"])
      assert.notInclude(steps, "waited for exit")
    }).pipe(Effect.scoped))

  it.effect("a process that cannot start is a failed outcome too", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [answer("never")])).pipe(
        Effect.provide(fakeLauncher(journal, { spawnFails: true }))
      )
      const outcome = yield* provider.start(yield* makeContext(journal))
      assert.strictEqual(outcome.status, "failed")
      assert.strictEqual(outcome.notes, "cannot start: fake-agent: no such file")
      // The command line was recorded before the spawn was tried.
      assert.deepInclude(journal.metas.at(-1), { status: "failed", command: "fake-agent --model scripted:parent-model" })
      assert.deepStrictEqual(types(journal.transcript), ["turn-start", "message", "turn-end"])
    }).pipe(Effect.scoped))

  it.effect("a defect is a failed outcome with its first line; the whole cause is logged once", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const logged: Array<{ level: string; message: unknown }> = []
      const capture = Logger.layer([Logger.make(({ logLevel, message }) => void logged.push({ level: logLevel, message }))])
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [{ _tag: "Die", defect: new Error("boom\nat the second line") }])).pipe(
        Effect.provide(fakeLauncher(journal))
      )
      const outcome = yield* provider.start(yield* makeContext(journal)).pipe(Effect.provide(capture))
      assert.strictEqual(outcome.status, "failed")
      assert.strictEqual(outcome.notes, "the fake backend crashed: Error: boom")
      const errors = logged.filter((l) => l.level === "Error" || l.level === "Fatal")
      assert.lengthOf(errors, 1)
      assert.include(String(errors[0]!.message), "the fake child fake-1 crashed")
      assert.deepInclude(journal.metas.at(-1), { status: "failed", notes: "the fake backend crashed: Error: boom" })
      assert.strictEqual(journal.syncs, 1)
    }).pipe(Effect.scoped))

  it.effect("continuable: the new session is saved, queued messages are further turns, continue reopens the saved session", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const backend = fakeBackend(journal, [answer("first"), answer("second", usage(1, 1)), answer("third")], {
        resume: {
          version: 1,
          schema: Schema.Struct({ sessionId: Schema.String }),
          save: (_, sessionId) => ({ sessionId }),
          reopen: (_, saved) => Effect.sync(() => (journal.steps.push(`reopen ${saved.sessionId}`), saved.sessionId))
        }
      })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      assert.isDefined(provider.continue)
      assert.strictEqual(provider.continuation?.version, 1)
      const started = yield* provider.start(yield* makeContext(journal, { messages: [["and more"]] }))
      assert.deepStrictEqual(started, { status: "completed", output: "second", usage: usage(4, 3), notes: undefined })
      assert.deepStrictEqual(journal.saved, [{ sessionId: "s-1" }])
      assert.deepStrictEqual(journal.steps.filter((s) => s.startsWith("prompt")), ["prompt do the task", "prompt and more"])
      // Each turn is framed on its own.
      assert.deepStrictEqual(journal.transcript.filter((e) => e.type === "turn-end").map((e) => e.type === "turn-end" && e.turn), [0, 1])

      const context = yield* makeContext(journal)
      const continued = yield* provider.continue!({ ...context, message: "again", continuation: { sessionId: "s-1" } })
      assert.strictEqual(continued.output, "third")
      assert.include(journal.steps, "reopen s-1")
      assert.strictEqual(journal.steps.filter((s) => s === "new session").length, 1)
      assert.lengthOf(journal.saved, 1)
    }).pipe(Effect.scoped))

  it.effect("a one-shot backend has no continue and leaves queued messages alone", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(fakeBackend(journal, [answer("only")])).pipe(Effect.provide(fakeLauncher(journal)))
      assert.isUndefined(provider.continue)
      assert.isUndefined(provider.continuation)
      const outcome = yield* provider.start(yield* makeContext(journal, { messages: [["ignored"]] }))
      assert.strictEqual(outcome.output, "only")
      assert.deepStrictEqual(journal.steps.filter((s) => s.startsWith("prompt")), ["prompt do the task"])
    }).pipe(Effect.scoped))

  it.live("the outcome comes first; the child is closed afterwards, and the tree's end cuts its exit grace short", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      // A child that never exits on EOF, with an exit grace far longer than any test.
      const backend = fakeBackend(journal, [answer("done")], { launch: () => Effect.succeed({ command: "fake-agent", cwd: "/work", exitGrace: "1 hour" }) })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal, { exitsOnEof: false })))
      const treeScope = yield* Scope.make()
      const context = yield* makeContext(journal).pipe(Scope.provide(treeScope))
      const outcome = yield* provider.start(context)
      assert.strictEqual(outcome.status, "completed")
      // The record is complete before the outcome is returned; the process is not closed yet.
      assert.strictEqual(journal.metas.at(-1)!.status, "completed")
      assert.strictEqual(journal.syncs, 1)
      assert.notInclude(journal.steps, "process released")
      // Closing goes on in the background: the child gets its exit grace (it answered) and does not exit.
      yield* until(() => journal.steps.includes("waited for exit") && journal.steps.includes("stdin ended"))
      assert.includeMembers(journal.steps, ["connection closed", "stdin ended", "waited for exit"])
      assert.notInclude(journal.steps, "process released")
      // The tree ends: the grace is cut short and the ladder runs.
      yield* Scope.close(treeScope, Exit.void)
      assert.strictEqual(journal.steps.at(-1), "process released")
    }))

  it.live("keep-alive: a completed continuable child stays warm, and a message continues it on the same process and session", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const backend = fakeBackend(journal, [answer("first"), answer("second")], {
        keepAlive: "1 hour",
        resume: {
          version: 1,
          schema: Schema.Struct({ sessionId: Schema.String }),
          save: (_, sessionId) => ({ sessionId }),
          reopen: (_, saved) => Effect.sync(() => (journal.steps.push(`reopen ${saved.sessionId}`), saved.sessionId)),
          coldUnsupported: () => "this agent cannot load sessions"
        }
      })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      const treeScope = yield* Scope.make()
      const context = yield* makeContext(journal).pipe(Scope.provide(treeScope))
      yield* provider.start(context)
      assert.notInclude(journal.steps, "process released")
      const check = { handle: context.handle, lifetime: context.lifetime, continuation: { sessionId: "s-1" } }
      // Warm: it can be continued although it could not be reloaded.
      yield* provider.checkContinue!(check)
      const continued = yield* provider.continue!({ ...context, runId: "run-2", message: "again", continuation: { sessionId: "s-1" } })
      assert.strictEqual(continued.output, "second")
      assert.lengthOf(journal.spawned, 1)
      assert.deepStrictEqual(journal.steps.filter((s) => s.startsWith("connect") || s.startsWith("reopen") || s === "new session"), [
        "connect fake-agent --model scripted:parent-model",
        "new session"
      ])
      assert.strictEqual(journal.metas.at(-1)!.sessionId, "s-1")
      // Taken by the continue and parked again; the tree's end closes it.
      yield* Scope.close(treeScope, Exit.void)
      yield* released(journal)
      // Cold, it is refused with the backend's reason.
      const refused = yield* provider.checkContinue!(check).pipe(Effect.flip)
      assert.strictEqual(refused, "this agent cannot load sessions")
    }))

  it.live("keep-alive passes: the warm child is closed by itself", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      const backend = fakeBackend(journal, [answer("first")], {
        keepAlive: "30 millis",
        resume: { version: 1, schema: Schema.Struct({ sessionId: Schema.String }), save: (_, sessionId) => ({ sessionId }), reopen: (_, saved) => Effect.succeed(saved.sessionId) }
      })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal)))
      const context = yield* makeContext(journal)
      yield* provider.start(context)
      yield* released(journal)
      assert.deepStrictEqual(journal.steps.slice(-4), ["connection closed", "waited for exit", "stdin ended", "process released"])
    }).pipe(Effect.scoped))

  it.live("the tree's end closes warm children at once with short graces, not the graces of normal operation", () =>
    Effect.gen(function*() {
      const journal = makeJournal()
      // Warm for an hour, deaf to EOF, with an exit grace of an hour: only the short ladder ends it.
      const backend = fakeBackend(journal, [answer("first")], {
        keepAlive: "1 hour",
        launch: () => Effect.succeed({ command: "fake-agent", cwd: "/work", exitGrace: "1 hour" }),
        resume: { version: 1, schema: Schema.Struct({ sessionId: Schema.String }), save: (_, sessionId) => ({ sessionId }), reopen: (_, saved) => Effect.succeed(saved.sessionId) }
      })
      const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(backend).pipe(Effect.provide(fakeLauncher(journal, { exitsOnEof: false })))
      const treeScope = yield* Scope.make()
      const context = yield* makeContext(journal).pipe(Scope.provide(treeScope))
      yield* provider.start(context)
      assert.notInclude(journal.steps, "process released")
      yield* Scope.close(treeScope, Exit.void)
      const end = journal.steps.slice(journal.steps.indexOf("connection closed"))
      assert.deepStrictEqual(end.filter((s) => s !== "waited for exit"), ["connection closed", "stdin ended", "stopped within 100 millis", "process released"])
    }))
})
