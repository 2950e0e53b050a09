import { assert, describe, it } from "@effect/vitest"
import type { TurnLoop } from "@dsh/agent"
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionError, type SessionStore } from "@dsh/session"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Subagents, SubagentTree, type Vocabulary } from "../src/index.ts"
import { FixtureProvider, Fixtures } from "../src/testing.ts"

/**
 * The subagent service on its own: the fixture provider stands in for every child and the
 * memory store for the disk; a second store over the same data is a restart.
 */
const model = ScriptedModel.make({ rules: [] })
const main: Vocabulary.ParentInfo = Fixtures.testParent(model, { cwd: "/tmp" })
const noContext = () => Effect.succeed({ tools: [], systemPrompt: "" })

const setup = (options: {
  readonly reply: (call: { readonly prompt: string; readonly index: number }) => FixtureProvider.FixtureReply
  readonly data?: MemorySessionStore.Data | undefined
  readonly session?: (session: SessionStore.SessionHandle) => SessionStore.SessionHandle
  readonly limits?: Parameters<typeof SubagentTree.make>[0]["limits"]
  readonly providers?: ReadonlyArray<Vocabulary.SubagentProvider>
}) =>
  Effect.gen(function*() {
    const data = options.data ?? MemorySessionStore.makeData()
    const store = yield* MemorySessionStore.make({ data })
    const existing = [...data.sessions.keys()][0]
    const stored = existing === undefined ? yield* store.create({ agent: "main", cwd: "/tmp", model: "scripted" }) : yield* store.open(existing)
    const session = options.session?.(stored) ?? stored
    const fixture = FixtureProvider.make({ reply: options.reply })
    const tree = yield* SubagentTree.make({ session, childContext: noContext, defaultModel: model, limits: options.limits })
    const subagents = yield* Subagents.make({ tree, providers: [fixture, ...(options.providers ?? [])], types: [Fixtures.testType("coder"), Fixtures.testType("custom", "custom")] })
    return { data, session, fixture, tree, subagents }
  })

const spawn = (subagents: Subagents.SubagentsShape, prompt: string, parent: Vocabulary.ParentInfo = main) =>
  subagents.spawn({ prompt, description: prompt, agent: "coder" }, parent)

/** A turn runner that records its prompts and what it was given before its (only) step. */
const recordingTurns = () => {
  const prompts: Array<string> = []
  const before: Array<ReadonlyArray<string>> = []
  const turn = (prompt: string, beforeStep: Effect.Effect<ReadonlyArray<{ readonly content: string }>>) =>
    Effect.gen(function*() {
      prompts.push(prompt)
      before.push((yield* beforeStep).map((m) => m.content))
      return { status: "completed", result: `answered ${prompt.slice(0, 20)}`, usage: Usage.make(1, 1), messages: [], durationMs: 0 } satisfies TurnLoop.TurnResult
    })
  return { prompts, before, turn }
}

describe("allow-lists", () => {
  it.effect("come from the parent's definition: `subagents: []` delegates to nothing", () =>
    Effect.gen(function*() {
      const { subagents } = yield* setup({ reply: () => ({ output: "x" }) })
      const none: Vocabulary.ParentInfo = { ...main, definition: Fixtures.testDefinition("main", { subagents: [] }) }
      assert.deepStrictEqual(yield* subagents.availableTypes(none), [])
      const refused = yield* Effect.flip(spawn(subagents, "go", none))
      assert.strictEqual(refused.reason, "NotAllowed")
    }).pipe(Effect.scoped))
})

describe("send", () => {
  it.effect("continues an idle child with a new Activation and returns its reply", () =>
    Effect.gen(function*() {
      const { subagents, fixture } = yield* setup({ reply: ({ prompt }) => ({ output: `did ${prompt}`, tokens: 2 }) })
      const first = yield* spawn(subagents, "first")
      const sent = yield* subagents.send(first.handle, "second", "user")
      assert.strictEqual(sent._tag, "Replied")
      assert.strictEqual(sent._tag === "Replied" ? sent.result.output : "", "did second")
      assert.deepStrictEqual(fixture.calls.map((c) => [c.kind, c.handle]), [["start", "coder-1"], ["continue", "coder-1"]])
    }).pipe(Effect.scoped))

  it.effect("to a running child queues the message for it", () =>
    Effect.gen(function*() {
      const { subagents, tree } = yield* setup({ reply: () => ({ hang: true }) })
      const fiber = yield* Effect.forkChild(spawn(subagents, "work"))
      yield* Effect.yieldNow
      const queued = yield* subagents.send("coder-1", "more", "user")
      assert.strictEqual(queued._tag, "Queued")
      assert.deepStrictEqual(yield* tree.activations.take("coder-1"), ["more"])
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.scoped))

  it.effect("to a child whose provider forwards messages: those queued before go first, in order, then the rest as they come", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      const forwarding = yield* Deferred.make<void>()
      const end = yield* Deferred.make<void>()
      const got: Array<string> = []
      let sendFromChild: (message: string) => Effect.Effect<unknown> = () => Effect.void
      const remote: Vocabulary.SubagentProvider = {
        specificationVersion: "v1",
        name: "custom",
        description: "forwards messages to where its child runs",
        start: (ctx) =>
          Effect.gen(function*() {
            yield* Deferred.succeed(started, undefined)
            yield* Deferred.await(go)
            // A message sent while the queued ones are being forwarded must wait its turn.
            yield* ctx.forwardMessages((m) => Effect.andThen(Effect.sync(() => got.push(m)), m === "a" ? sendFromChild("c") : Effect.void))
            yield* Deferred.succeed(forwarding, undefined)
            yield* Deferred.await(end)
            return { status: "completed", output: got.join(","), usage: Usage.emptyUsage } satisfies Vocabulary.ChildOutcome
          })
      }
      const { subagents } = yield* setup({ reply: () => ({ output: "x" }), providers: [remote] })
      const fiber = yield* Effect.forkChild(subagents.spawn({ prompt: "go", description: "r", agent: "custom" }, main))
      yield* Deferred.await(started)
      const handle = subagents.list("user")[0]!.handle
      sendFromChild = (m) => Effect.orDie(subagents.send(handle, m, "user"))
      for (const m of ["a", "b"]) assert.strictEqual((yield* subagents.send(handle, m, "user"))._tag, "Queued")
      yield* Deferred.succeed(go, undefined)
      yield* Deferred.await(forwarding)
      assert.strictEqual((yield* subagents.send(handle, "d", "user"))._tag, "Queued")
      yield* Deferred.succeed(end, undefined)
      assert.strictEqual((yield* Fiber.join(fiber)).output, "a,b,c,d")
    }).pipe(Effect.scoped))

  it.effect("refuses unknown handles and callers that are not ancestors", () =>
    Effect.gen(function*() {
      const { subagents } = yield* setup({ reply: () => ({ output: "x" }) })
      const a = yield* spawn(subagents, "a")
      const b = yield* spawn(subagents, "b")
      assert.strictEqual((yield* Effect.flip(subagents.send("ghost-1", "x", "user"))).reason, "UnknownHandle")
      const sibling: Vocabulary.ParentInfo = { ...main, handle: a.handle, depth: 1 }
      assert.strictEqual((yield* Effect.flip(subagents.send(b.handle, "x", sibling))).reason, "NotOwner")
    }).pipe(Effect.scoped))
})

describe("stop", () => {
  it.effect("stops a child and its descendants; each is recorded cancelled", () =>
    Effect.gen(function*() {
      const { subagents, tree } = yield* setup({ reply: () => ({ hang: true }), limits: { maxDepth: 2 } })
      /** Spawns under `parent` and returns once the child has started. */
      const start = (prompt: string, parent: Vocabulary.ParentInfo) =>
        Effect.gen(function*() {
          const started = yield* Deferred.make<void>()
          const onEvent = (e: { readonly type: string }) => (e.type === "subagent-start" ? Deferred.succeed(started, undefined).pipe(Effect.asVoid) : Effect.void)
          const fiber = yield* Effect.forkChild(spawn(subagents, prompt, { ...parent, onEvent }))
          yield* Deferred.await(started)
          return fiber
        })
      const child = yield* start("c", main)
      const grandchild = yield* start("g", { ...main, handle: "coder-1", depth: 1 })
      const stopped = yield* subagents.stop("coder-1", "main")
      assert.sameMembers([...stopped], ["coder-1", "coder-2"])
      yield* Fiber.await(child)
      yield* Fiber.await(grandchild)
      assert.deepStrictEqual(tree.descriptors.all().map((d) => [d.handle, d.status]), [["coder-1", "cancelled"], ["coder-2", "cancelled"]])
    }).pipe(Effect.scoped))
})

describe("background runs", () => {
  it.effect("an outcome is announced before the parent's next model call, exactly once", () =>
    Effect.gen(function*() {
      const { subagents, tree } = yield* setup({ reply: () => ({ output: "bg result", delayMs: 1000 }) })
      const accepted = yield* subagents.spawnBackground({ prompt: "bg", description: "bg", agent: "coder" }, main)
      const { prompts, turn } = recordingTurns()
      // The first turn ends while the child still runs: the parent waits and is woken.
      const fiber = yield* Effect.forkChild(subagents.runTurns("main", "start", turn))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(prompts.length, 2)
      assert.include(prompts[1] ?? "", `(run ${accepted.runId})`)
      assert.include(prompts[1] ?? "", "bg result")
      assert.deepStrictEqual(result.usage, Usage.make(2, 2))
      assert.isTrue(tree.announcements.record(accepted.runId)?.delivered)
      assert.deepStrictEqual(yield* tree.announcements.takeTexts("main"), [])
    }).pipe(Effect.scoped))

  it.effect("wait returns the outcome, which is then never announced", () =>
    Effect.gen(function*() {
      const { subagents, tree } = yield* setup({ reply: () => ({ output: "waited", delayMs: 500 }) })
      const accepted = yield* subagents.spawnBackground({ prompt: "bg", description: "bg", agent: "coder" }, main)
      const waiting = yield* Effect.forkChild(subagents.wait("main", undefined, "10 seconds"))
      yield* TestClock.adjust("500 millis")
      const outcomes = yield* Fiber.join(waiting)
      assert.deepStrictEqual(outcomes.map((o) => ("output" in o ? o.output : o.status)), ["waited"])
      // The wake loop has nothing left to wait for: no second turn.
      const { prompts, turn } = recordingTurns()
      yield* subagents.runTurns("main", "next", turn)
      assert.deepStrictEqual(prompts, ["next"])
      yield* Effect.yieldNow
      assert.isTrue(tree.announcements.record(accepted.runId)?.delivered)
    }).pipe(Effect.scoped))

  it.effect("messages reach a child before its next step, and one that comes after its last step is the next turn", () =>
    Effect.gen(function*() {
      const { tree } = yield* setup({ reply: () => ({ output: "x" }) })
      yield* tree.activations.begin("coder-1")
      yield* tree.activations.deliver("coder-1", "early")
      const { prompts, before, turn } = recordingTurns()
      // The first turn ends, then a message arrives: too late for it, so it is the next turn.
      yield* tree.runTurns("coder-1", "task", (p, b) => turn(p, b).pipe(Effect.tap(() => (prompts.length === 1 ? tree.activations.deliver("coder-1", "late") : Effect.void))))
      assert.deepStrictEqual(before[0], ["early"])
      assert.deepStrictEqual(prompts, ["task", "late"])
    }).pipe(Effect.scoped))
})

describe("restarts", () => {
  it.effect("a child that was running when its process died is lost; its undelivered outcome is announced once", () =>
    Effect.gen(function*() {
      const data = MemorySessionStore.makeData()
      // The first process: a background child finished (outcome recorded), another still ran.
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const { subagents, tree, session } = yield* setup({ data, reply: ({ prompt }) => (prompt === "done" ? { output: "finished before the crash" } : { hang: true }) })
        const done = yield* subagents.spawnBackground({ prompt: "done", description: "d", agent: "coder" }, main)
        const running = yield* subagents.spawnBackground({ prompt: "hang", description: "h", agent: "coder" }, main)
        yield* Effect.sync(() => tree.announcements.record(done.runId)?.status).pipe(Effect.repeat({ until: (s) => s === "completed" }))
        return { done, running, session, descriptor: tree.descriptors.get(running.handle)!, task: tree.announcements.record(running.runId)! }
      }))
      // What a kill -9 leaves (no cleanup runs): the running child's records still say running.
      const { running, session, descriptor, task } = first
      yield* session.updateState((s) => ({ ...s, subagents: { ...(s.subagents as object), [running.handle]: { ...descriptor, status: "running" } } }))
      yield* session.writeTask(running.runId, { ...task, status: "running", delivered: false })
      // An out-of-process driver's meta.json, left saying running by its dead driver.
      const childStore = yield* session.child(running.handle)
      yield* childStore.writeMeta({ handle: running.handle, runId: running.runId, status: "running", pid: 4242, command: "fake-agent" })
      // The second process over the same data.
      const { subagents, tree } = yield* setup({ data, reply: () => ({ output: "x" }) })
      assert.strictEqual(tree.descriptors.get(running.handle)?.status, "lost")
      // Every record agrees: the descriptor, the task and meta.json (its other fields kept).
      assert.strictEqual(tree.announcements.record(running.runId)?.status, "lost")
      assert.deepInclude(yield* childStore.readMeta, { status: "lost", pid: 4242, command: "fake-agent" })
      assert.deepStrictEqual(tree.descriptors.lostOnLoad, [running.handle])
      const { before, turn } = recordingTurns()
      yield* subagents.runTurns("main", "after restart", turn)
      // Queued at load: both come before the first model call after the restart.
      const announced = before.flat().join("\n")
      assert.include(announced, "finished before the crash")
      assert.include(announced, `${running.handle} (run ${running.runId}) ended as lost`)
      // Delivered: a third process announces nothing again.
      const again = yield* setup({ data, reply: () => ({ output: "x" }) })
      assert.deepStrictEqual(yield* again.tree.announcements.takeTexts("main"), [])
    }).pipe(Effect.scoped))
})

describe("continuations", () => {
  const Saved = Schema.Struct({ sessionId: Schema.String })
  const custom = (seen: Array<unknown>): Vocabulary.SubagentProvider => ({
    specificationVersion: "v1",
    name: "custom",
    description: "saves a session id",
    continuation: { version: 2, schema: Saved },
    start: (ctx) =>
      ctx.saveContinuation({ sessionId: "s-1" }).pipe(
        Effect.andThen(ctx.store?.transcript.append({ type: "message", message: { role: "user", content: ctx.request.prompt } }).pipe(Effect.orDie) ?? Effect.void),
        Effect.as<Vocabulary.ChildOutcome>({ status: "completed", output: "started", usage: Usage.emptyUsage })
      ),
    continue: (ctx) => Effect.sync(() => seen.push(ctx.continuation)).pipe(Effect.as<Vocabulary.ChildOutcome>({ status: "completed", output: "continued", usage: Usage.emptyUsage }))
  })

  it.effect("are checked and decoded before continue; a bad envelope is InvalidContinuation", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const { subagents, tree } = yield* setup({ reply: () => ({ output: "x" }), providers: [custom(seen)] })
      const r = yield* subagents.spawn({ prompt: "go", description: "c", agent: "custom" }, main)
      const ok = yield* subagents.send(r.handle, "again", "user")
      assert.strictEqual(ok._tag, "Replied")
      assert.deepStrictEqual(seen, [{ sessionId: "s-1" }])
      const d = tree.descriptors.get(r.handle)!
      for (const bad of [{ provider: "custom", version: 1, data: { sessionId: "s-1" } }, { provider: "custom", version: 2, data: { session: 3 } }, { provider: "other", version: 2, data: {} }]) {
        yield* tree.descriptors.save({ ...d, continuation: bad })
        const refused = yield* Effect.flip(subagents.send(r.handle, "again", "user"))
        assert.strictEqual(refused.reason, "InvalidContinuation", JSON.stringify(bad))
      }
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.scoped))
})

describe("results", () => {
  it.effect("a timeout of 0 means no timeout", () =>
    Effect.gen(function*() {
      // No session: its request poller would make an hour of virtual time 180,000 wake-ups.
      const fixture = FixtureProvider.make({ reply: () => ({ output: "slow but done", delayMs: 3_600_000 }) })
      const tree = yield* SubagentTree.make({ childContext: noContext, defaultModel: model, limits: { timeoutSeconds: 0 } })
      const subagents = yield* Subagents.make({ tree, providers: [fixture], types: [Fixtures.testType("coder")] })
      const fiber = yield* Effect.forkChild(spawn(subagents, "slow"))
      // An hour at a time until the child is done (its sleep may start after the first step):
      // with a timeout, it would end as `timeout` instead.
      for (let hours = 0; hours < 5 && fiber.pollUnsafe() === undefined; hours++) yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* Fiber.join(fiber)).status, "completed")
    }).pipe(Effect.scoped))

  it.effect("a stopped or timed-out child's result keeps what it said and used so far", () =>
    Effect.gen(function*() {
      const talked = yield* Deferred.make<void>()
      const talker: Vocabulary.SubagentProvider = {
        specificationVersion: "v1",
        name: "custom",
        description: "talks, then hangs",
        start: (ctx) =>
          Effect.gen(function*() {
            yield* ctx.onEvent({ type: "usage", model: "m", usage: Usage.make(7, 3) })
            yield* ctx.onEvent({ type: "message", message: { role: "assistant", content: "halfway there" } })
            yield* Deferred.succeed(talked, undefined)
            return yield* Effect.never
          })
      }
      const { subagents } = yield* setup({ reply: () => ({ output: "x" }), providers: [talker] })
      const fiber = yield* Effect.forkChild(subagents.spawn({ prompt: "go", description: "t", agent: "custom", timeoutSeconds: 5 }, main))
      // The child runs (its timeout counting) before the clock moves.
      yield* Deferred.await(talked)
      yield* TestClock.adjust("5 seconds")
      const r = yield* Fiber.join(fiber)
      assert.strictEqual(r.status, "timeout")
      assert.strictEqual(r.output, "halfway there")
      assert.deepStrictEqual(r.usage, Usage.make(7, 3))
    }).pipe(Effect.scoped))

  it.effect("an outcome that cannot be recorded is a failed result with the reason", () =>
    Effect.gen(function*() {
      let broken = false
      const { subagents } = yield* setup({
        reply: () => ({ output: "done" }),
        session: (s) => ({
          ...s,
          updateState: (f) => (broken ? Effect.fail(new SessionError.SessionError({ reason: "Io", detail: "disk full" })) : s.updateState(f))
        })
      })
      broken = true
      const r = yield* spawn(subagents, "go")
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes ?? "", "could not be recorded: disk full")
      assert.strictEqual(r.output, "done")
    }).pipe(Effect.scoped))
})
