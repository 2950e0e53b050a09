import type { Events } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { type Records, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { ProcessLauncher, SubprocessError } from "@dsh/subprocess"
import { Deferred, Effect, Exit, Layer, Schedule, Schema, type Scope, Sink, Stream } from "effect"
import type { OutOfProcessBackend } from "../src/index.ts"

/** What a fake run did, in order, for the assertions. */
export interface Journal {
  readonly steps: Array<string>
  readonly spawned: Array<ProcessLauncher.SpawnOptions>
  readonly transcript: Array<Events.AgentEvent>
  readonly forwarded: Array<Events.AgentEvent>
  readonly metas: Array<Records.ChildMeta>
  readonly saved: Array<unknown>
  syncs: number
  /** Completed each time a fake process is released (the launcher's ladder ran). */
  released: Deferred.Deferred<void>
}

export const makeJournal = (): Journal => ({
  steps: [],
  spawned: [],
  transcript: [],
  forwarded: [],
  metas: [],
  saved: [],
  syncs: 0,
  released: Deferred.makeUnsafe<void>()
})

/** Polls an observable condition (bounded); for background work a test cannot join. */
export const until = (condition: () => boolean) =>
  Effect.sync(condition).pipe(Effect.repeat({ schedule: Schedule.spaced("5 millis"), until: (holds) => holds, times: 1000 }))

/** Waits until the next fake process has been released (closing happens in the background). */
export const released = (journal: Journal) =>
  Deferred.await(journal.released).pipe(Effect.andThen(Effect.sync(() => void (journal.released = Deferred.makeUnsafe<void>()))))

/** A child store that remembers every append, sync and meta write. */
const recordingStore = (journal: Journal): SessionStore.ChildStore => ({
  name: "fake-1",
  location: "memory://fake-1",
  transcript: {
    location: "memory://fake-1/wire.jsonl",
    append: (event) => Effect.sync(() => void journal.transcript.push(event)),
    sync: Effect.sync(() => void journal.syncs++),
    read: Effect.succeed({ records: [], warnings: [] }),
    readFrom: (cursor) => Effect.succeed({ records: [], warnings: [], cursor })
  },
  readMeta: Effect.sync(() => journal.metas.at(-1)),
  writeMeta: (meta) => Effect.sync(() => void journal.metas.push(structuredClone(meta) as Records.ChildMeta))
})

/**
 * A launcher that starts no process: its child exits (code 0) when its stdin has ended. A wait
 * for its exit and its release are journaled, so tests see whether it got an exit grace and
 * when the scope closed.
 */
export const fakeLauncher = (journal: Journal, options: { readonly spawnFails?: boolean; readonly exitsOnEof?: boolean } = {}) =>
  Layer.succeed(
    ProcessLauncher.ProcessLauncher,
    ProcessLauncher.ProcessLauncher.of({
      spawn: (spawn): Effect.Effect<ProcessLauncher.ChildProcessHandle, SubprocessError.SubprocessError, Scope.Scope> =>
        options.spawnFails === true
          ? Effect.fail(new SubprocessError.SubprocessError({ reason: "SpawnFailed", command: spawn.command, detail: "no such file" }))
          : Effect.acquireRelease(
            Effect.gen(function*() {
              journal.spawned.push(spawn)
              const exited = yield* Deferred.make<{ exitCode: number | null; signal: string | null }>()
              // The fake child reads its stdin and exits at EOF, which it sees a moment after the
              // writer closed the pipe (as a real process does).
              const stdin = Sink.forEach((_: Uint8Array) => Effect.void).pipe(
                Sink.onExit((exit) =>
                  Exit.isSuccess(exit)
                    ? Effect.sync(() =>
                      void setImmediate(() => {
                        journal.steps.push("stdin ended")
                        if (options.exitsOnEof !== false) Deferred.doneUnsafe(exited, Effect.succeed({ exitCode: 0, signal: null }))
                      })
                    )
                    : Effect.void
                )
              )
              return {
                pid: 4242,
                stdin,
                stdout: Stream.empty,
                stderr: Stream.empty,
                stderrTail: Effect.succeed(""),
                exit: Effect.sync(() => void journal.steps.push("waited for exit")).pipe(Effect.andThen(Deferred.await(exited))),
                stop: Effect.void,
                // The short-grace ladder of an exit: journaled, and the fake process is gone.
                stopWithin: (grace) =>
                  Effect.sync(() => void journal.steps.push(`stopped within ${String(grace)}`)).pipe(
                    Effect.andThen(Deferred.succeed(exited, { exitCode: null, signal: "SIGKILL" }))
                  )
              } satisfies ProcessLauncher.ChildProcessHandle
            }),
            () => Effect.sync(() => journal.steps.push("process released")).pipe(Effect.andThen(Deferred.succeed(journal.released, undefined)))
          ),
      run: () => Effect.die("not used")
    })
  )

export class FakeError extends Schema.TaggedError<FakeError>()("FakeError", { message: Schema.String }) {}

/** How the fake child answers a prompt. */
export type Behaviour =
  | { readonly _tag: "Answer"; readonly events?: ReadonlyArray<Events.AgentEvent>; readonly report: OutOfProcessBackend.TurnReport }
  /** Streams `events`, then answers `report` once asked to cancel. */
  | { readonly _tag: "AnswerOnCancel"; readonly events?: ReadonlyArray<Events.AgentEvent>; readonly report: OutOfProcessBackend.TurnReport }
  /** Streams `events`, then never answers, cancelled or not. */
  | { readonly _tag: "Hang"; readonly events?: ReadonlyArray<Events.AgentEvent> }
  | { readonly _tag: "Fail"; readonly events?: ReadonlyArray<Events.AgentEvent>; readonly error: FakeError }
  | { readonly _tag: "Die"; readonly defect: unknown }

export interface FakeConnection {
  /** Completed by `cancel`. */
  readonly cancelled: Deferred.Deferred<void>
}

export const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, totalTokens: input + output })

/** A backend whose connection is a pair of Deferreds: no process, no protocol. */
export const fakeBackend = (
  journal: Journal,
  behaviours: ReadonlyArray<Behaviour>,
  overrides: Partial<OutOfProcessBackend.OutOfProcessBackend<FakeConnection, FakeError, { readonly sessionId: string }>> = {}
): OutOfProcessBackend.OutOfProcessBackend<FakeConnection, FakeError, { readonly sessionId: string }> => {
  let prompts = 0
  return {
    specificationVersion: "v1",
    name: "fake",
    description: "a fake out-of-process backend",
    turnEvents: "driver",
    cancelGrace: "50 millis",
    describe: (error) => (error._tag === "SubprocessError" ? `cannot start: ${error.message}` : `the fake child said: ${error.message}`),
    launch: ({ modelSpec }) =>
      Effect.sync(() => {
        journal.steps.push(`launch ${modelSpec}`)
        return { command: "fake-agent", args: ["--model", modelSpec], cwd: "/work", exitGrace: "1 second" }
      }),
    connect: ({ commandLine }) =>
      Effect.gen(function*() {
        journal.steps.push(`connect ${commandLine}`)
        yield* Effect.addFinalizer(() => Effect.sync(() => void journal.steps.push("connection closed")))
        return { connection: { cancelled: yield* Deferred.make<void>() }, agentInfo: { name: "fake", version: "1" } }
      }),
    newSession: () => Effect.sync(() => (journal.steps.push("new session"), "s-1")),
    prompt: (connection, turn) =>
      Effect.gen(function*() {
        const behaviour = behaviours[Math.min(prompts++, behaviours.length - 1)]!
        journal.steps.push(`prompt ${turn.text}`)
        if (behaviour._tag === "Die") return yield* Effect.die(behaviour.defect)
        for (const event of behaviour.events ?? []) yield* turn.emit(event)
        switch (behaviour._tag) {
          case "Answer":
            return behaviour.report
          case "AnswerOnCancel":
            yield* Deferred.await(connection.cancelled)
            return behaviour.report
          case "Hang":
            return yield* Effect.never
          case "Fail":
            return yield* behaviour.error
        }
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => void journal.steps.push("prompt interrupted")))),
    cancel: (connection) => Effect.sync(() => void journal.steps.push("cancel")).pipe(Effect.andThen(Deferred.succeed(connection.cancelled, undefined))),
    ...overrides
  }
}

/** A provider context for the fake child, on a recording store. */
export const makeContext = (journal: Journal, options: {
  readonly model?: string | undefined
  readonly typeModel?: string | undefined
  /** The model the service chose (default: the parent's). */
  readonly chosen?: string | undefined
  readonly messages?: ReadonlyArray<ReadonlyArray<string>> | undefined
} = {}) =>
  Effect.gen(function*() {
    const tree = yield* SubagentTree.make({ childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const inbox = [...(options.messages ?? [])]
    const model = { provider: "scripted", model: "parent-model", stream: () => Stream.empty, generate: () => Effect.die("not called") }
    return {
      handle: "fake-1",
      runId: "run-1",
      request: { prompt: "do the task", description: "fake", agent: "fake:agent", model: options.model },
      type: Fixtures.testType("fake:agent", "fake", options.typeModel === undefined ? {} : { model: options.typeModel }),
      parent: Fixtures.testParent(model, { cwd: "/work" }),
      model: { spec: options.chosen ?? "scripted:parent-model", model },
      store: recordingStore(journal),
      onEvent: (event) => Effect.sync(() => void journal.forwarded.push(event)),
      childContext: (child) => tree.childContext(child, tree),
      limits: tree.limits,
      sessionId: undefined,
      lifetime: tree.scope,
      resolveModel: () => Effect.die("not called"),
      saveContinuation: (data) => Effect.sync(() => void journal.saved.push(data)),
      takeMessages: Effect.sync(() => inbox.shift() ?? []),
      forwardMessages: () => Effect.void,
      runTurns: () => Effect.die("not called")
    } satisfies Vocabulary.StartContext
  })
