import { addUsage, type AgentEvent, isEphemeral } from "@dsh/core"
import type { ChildOutcome, StartContext, SubagentProvider } from "@dsh/subagent"
import { ProcessLauncher, type ProcessLauncherShape } from "@dsh/subprocess"
import { Cause, Clock, Effect, Exit, Fiber, Option, Ref } from "effect"
import { iso, makeMetaWriter } from "./internal/Meta.ts"
import { makeProgress } from "./internal/Progress.ts"
import { makeTurnFrame } from "./internal/TurnFrame.ts"
import type { OutOfProcessBackend, OutOfProcessRun, TurnReport } from "./OutOfProcessBackend.ts"

/**
 * The model spec a child is asked to use: the one the service chose for the run (the request's,
 * the type's, the tree's default for children or the parent's; always `provider:model`, so a
 * child with a config of its own needs none of the parent's aliases).
 */
export const childModelSpec = (context: StartContext): string => context.model.spec

const firstLine = (text: string): string => text.split("\n")[0] ?? text

/**
 * The provider of an out-of-process backend: `start` for every backend, `continue` and the
 * continuation spec for those with `resume`. Children are started through the `ProcessLauncher`
 * of the context the provider is made in; no backend starts a process of its own.
 */
export const makeOutOfProcessProvider = <C, E, S = never>(
  backend: OutOfProcessBackend<C, E, S>
): Effect.Effect<SubagentProvider, never, ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher
    const resume = backend.resume
    const provider: SubagentProvider = {
      name: backend.name,
      description: backend.description,
      start: (context) => runOutOfProcess(backend, launcher, context, context.request.prompt, Option.none())
    }
    if (resume === undefined) return provider
    return {
      ...provider,
      // The service decoded the saved envelope with `resume.schema` before calling this.
      continue: (context) => runOutOfProcess(backend, launcher, context, context.message, Option.some(context.continuation as S)),
      continuation: { version: resume.version, schema: resume.schema }
    }
  })

/**
 * One run of an out-of-process child, start or continue. It owns, for every backend:
 * - record-and-forward: each event the child emits is appended to its transcript (text deltas
 *   excepted) and forwarded to its live observers;
 * - `meta.json`: `starting`, then command and cwd, pid and `running`, agentInfo, session id,
 *   and finally how the run ended (`endedAt`, `notes`);
 * - the cancel ladder: on interruption mid-turn, `cancel`, then up to `cancelGrace` for the
 *   child's own answer, then the turn is interrupted; then the scope closes (connection,
 *   stdin, `exitGrace` for a child that answered, the launcher's ladder on its process group);
 * - exactly one cleanup, on success, failure and interruption alike, after the process is
 *   gone: the open turn's `turn-end`, the final `meta.json`, a transcript sync;
 * - the outcome of every fault: a typed error becomes `failed` with `describe(error)` as notes,
 *   a defect `failed` with its first line (the full cause logged once); both keep what the
 *   child said and used so far. Interruption propagates (the service records it).
 */
const runOutOfProcess = <C, E, S>(
  backend: OutOfProcessBackend<C, E, S>,
  launcher: ProcessLauncherShape,
  context: StartContext,
  prompt: string,
  saved: Option.Option<S>
): Effect.Effect<ChildOutcome> =>
  Effect.gen(function*() {
    const run: OutOfProcessRun = { context, modelSpec: childModelSpec(context) }
    const attributes = { provider: backend.name, handle: context.handle, runId: context.runId }
    const transcript = context.store?.transcript
    const progress = yield* makeProgress
    const emit = (event: AgentEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (transcript !== undefined && !isEphemeral(event)) {
          yield* transcript.append(event).pipe(Effect.ignore({ log: "Warn", message: `could not record an event of ${context.handle}` }))
        }
        yield* progress.see(event)
        yield* context.onEvent(event)
      })
    const meta = yield* makeMetaWriter(context, run.modelSpec)
    const frame = yield* makeTurnFrame(backend.turnEvents, emit)
    /** Whether the child answered its last prompt: then it gets `exitGrace` to exit by itself. */
    const answered = yield* Ref.make(false)
    /** The answer a cancelled turn still gave within `cancelGrace`. */
    const lastAnswer = yield* Ref.make(Option.none<TurnReport>())

    /** So far: what the child said and used (for outcomes its runtime did not report). */
    const soFar = (status: ChildOutcome["status"], notes: string): Effect.Effect<ChildOutcome> =>
      Effect.gen(function*() {
        const answer = yield* Ref.get(lastAnswer)
        const output = Option.isSome(answer) && answer.value.output !== "" ? answer.value.output : yield* progress.output
        const usage = Option.isSome(answer) ? answer.value.usage : yield* progress.usage
        return { status, output, usage, notes }
      })

    const turn = (connection: C, sessionId: string, text: string): Effect.Effect<TurnReport, E> =>
      Effect.gen(function*() {
        yield* frame.open(text)
        yield* Ref.set(answered, false)
        const running = yield* Effect.forkChild(
          backend.prompt(connection, { sessionId, text, emit }).pipe(Effect.withSpan("OutOfProcess.prompt", { attributes }))
        )
        const stop = backend.cancel(connection, sessionId).pipe(
          Effect.andThen(Fiber.await(running)),
          Effect.timeoutOption(backend.cancelGrace),
          Effect.flatMap((answer) =>
            Option.isSome(answer) && Exit.isSuccess(answer.value)
              ? Ref.set(answered, true).pipe(Effect.andThen(Ref.set(lastAnswer, Option.some(answer.value.value))))
              : Fiber.interrupt(running)
          )
        )
        const report = yield* Fiber.join(running).pipe(Effect.onInterrupt(() => stop))
        yield* Ref.set(answered, true)
        yield* frame.close(report)
        return report
      })

    const body = Effect.gen(function*() {
      yield* frame.open(prompt)
      const plan = yield* backend.launch(run).pipe(Effect.withSpan("OutOfProcess.launch", { attributes }))
      const commandLine = [plan.command, ...(plan.args ?? [])].join(" ")
      yield* meta.write({ command: commandLine, cwd: plan.cwd })
      const child = yield* launcher.spawn(plan).pipe(Effect.withSpan("OutOfProcess.spawn", { attributes }))
      // Released after the connection closes (finalizers run last-first): end stdin; a child that
      // answered its last prompt may exit by itself within `exitGrace`; then the launcher's ladder.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          yield* Effect.sync(() => child.stdin?.end())
          if (yield* Ref.get(answered)) yield* Effect.timeoutOption(child.exit, plan.exitGrace)
        })
      )
      yield* meta.write({ status: "running", pid: child.pid })
      const { connection, agentInfo } = yield* backend.connect({ child, plan, commandLine }, run).pipe(
        Effect.withSpan("OutOfProcess.connect", { attributes })
      )
      yield* meta.write({ agentInfo })
      const resume = backend.resume
      const sessionId = yield* (resume !== undefined && Option.isSome(saved)
        ? resume.reopen(connection, saved.value, run)
        : backend.newSession(connection, run).pipe(
          Effect.tap((id) => (resume === undefined ? Effect.void : context.saveContinuation(resume.save(id))))
        )).pipe(Effect.withSpan("OutOfProcess.session", { attributes }))
      yield* meta.write({ sessionId })

      let report = yield* turn(connection, sessionId, prompt)
      let usage = report.usage
      // A continuable child hears the messages sent while it ran as further turns (warm).
      while (resume !== undefined && report.status === "completed") {
        const queued = yield* context.takeMessages
        if (queued.length === 0) break
        for (const message of queued) {
          report = yield* turn(connection, sessionId, message)
          usage = addUsage(usage, report.usage)
        }
      }
      return { status: report.status, output: report.output, usage, notes: report.notes } satisfies ChildOutcome
    }).pipe(Effect.scoped)

    const cleanup = (outcome: ChildOutcome) =>
      Effect.gen(function*() {
        yield* frame.close(outcome)
        yield* meta.write({ status: outcome.status, endedAt: iso(yield* Clock.currentTimeMillis), notes: outcome.notes })
        if (transcript !== undefined) {
          yield* transcript.sync.pipe(Effect.ignore({ log: "Warn", message: `could not sync ${context.handle}'s transcript` }))
        }
      })

    return yield* body.pipe(
      Effect.catch((error) => soFar("failed", backend.describe(error))),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logError(`the ${backend.name} child ${context.handle} crashed`, cause).pipe(
            Effect.andThen(soFar("failed", `the ${backend.name} backend crashed: ${firstLine(Cause.pretty(cause))}`))
          )
      ),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) ? cleanup(exit.value) : Effect.flatMap(soFar("cancelled", "cancelled"), cleanup)
      )
    )
  })
