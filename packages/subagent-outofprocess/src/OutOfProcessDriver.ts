import { Events, Trace, Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import { ProcessLauncher } from "@dsh/subprocess"
import { Cause, Clock, Effect, Exit, Fiber, Option, Ref, Scope } from "effect"
import { iso, makeMetaWriter } from "./internal/Meta.ts"
import { makeProgress } from "./internal/Progress.ts"
import { closeResident, makeResidents, type Resident, type Residents } from "./internal/Resident.ts"
import { makeTurnFrame } from "./internal/TurnFrame.ts"
import type { OutOfProcessBackend, OutOfProcessRun, TurnReport } from "./OutOfProcessBackend.ts"

/**
 * The model spec a child is asked to use: the one the service chose for the run (the request's,
 * the type's, the tree's default for children or the parent's; always `provider:model`, so a
 * child with a config of its own needs none of the parent's aliases).
 */
export const childModelSpec = (context: Vocabulary.StartContext): string => context.model.spec

const firstLine = (text: string): string => text.split("\n")[0] ?? text

const addCost = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : a + b)

/**
 * The provider of an out-of-process backend: `start` for every backend; `continue`, the
 * continuation spec and `checkContinue` for those with `resume`. Children are started through
 * the `ProcessLauncher` of the context the provider is made in; no backend starts a process of
 * its own. Warm children (`keepAlive`) are kept per session tree by this provider.
 */
export const makeOutOfProcessProvider = <C, E, S = never>(
  backend: OutOfProcessBackend<C, E, S>
): Effect.Effect<Vocabulary.SubagentProvider, never, ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher.ProcessLauncher
    const residents = makeResidents<C>()
    const resume = backend.resume
    const provider: Vocabulary.SubagentProvider = {
      specificationVersion: backend.specificationVersion,
      name: backend.name,
      description: backend.description,
      start: (context) => runOutOfProcess(backend, launcher, residents, context, context.request.prompt, Option.none())
    }
    if (resume === undefined) return provider
    return {
      ...provider,
      // The service decoded the saved envelope with `resume.schema` before calling this.
      continue: (context) => runOutOfProcess(backend, launcher, residents, context, context.message, Option.some(context.continuation as S)),
      continuation: { version: resume.version, schema: resume.schema },
      // A warm child always can; a cold one only if its saved session can be reopened.
      checkContinue: ({ handle, lifetime, continuation }) => {
        if (residents.has(lifetime, handle)) return Effect.void
        const why = resume.coldUnsupported?.(continuation as S)
        return why === undefined ? Effect.void : Effect.fail(why)
      }
    }
  })

/**
 * What one run's steps share: the backend and the tree's residents, the run's records, and
 * `Ref`s for the child it speaks to (read by the release whatever way the run ended).
 */
interface ChildRun<C, E, S> {
  readonly backend: OutOfProcessBackend<C, E, S>
  readonly launcher: ProcessLauncher.ProcessLauncherShape
  readonly residents: Residents<C>
  readonly context: Vocabulary.StartContext
  readonly saved: Option.Option<S>
  readonly run: OutOfProcessRun
  readonly attributes: Readonly<Record<string, unknown>>
  readonly meta: Effect.Success<ReturnType<typeof makeMetaWriter>>
  readonly frame: Effect.Success<ReturnType<typeof makeTurnFrame>>
  readonly emit: (event: Events.AgentEvent) => Effect.Effect<void>
  /** The answer a cancelled turn still gave within `cancelGrace`. */
  readonly lastAnswer: Ref.Ref<Option.Option<TurnReport>>
  /** The child this run speaks to, once it exists (closed or kept when the run ends). */
  readonly current: Ref.Ref<Option.Option<Resident<C>>>
  /** Scopes of a child still being started (spawned, not connected yet). */
  readonly starting: Ref.Ref<Option.Option<{ readonly processScope: Scope.Closeable }>>
}

/** One turn of the child, with the cancel ladder on interruption. */
const childTurn = <C, E, S>(x: ChildRun<C, E, S>, resident: Resident<C>, text: string): Effect.Effect<TurnReport, E> =>
  Effect.gen(function*() {
    yield* x.frame.open(text)
    yield* Ref.set(resident.answered, false)
    const running = yield* Effect.forkChild(
      x.backend.prompt(resident.connection, { sessionId: resident.sessionId, text, emit: x.emit }).pipe(
        Effect.withSpan("OutOfProcess.prompt", { attributes: x.attributes })
      )
    )
    const stop = x.backend.cancel(resident.connection, resident.sessionId).pipe(
      Effect.andThen(Fiber.await(running)),
      Effect.timeoutOption(x.backend.cancelGrace),
      Effect.flatMap((answer) =>
        Option.isSome(answer) && Exit.isSuccess(answer.value)
          ? Ref.set(resident.answered, true).pipe(Effect.andThen(Ref.set(x.lastAnswer, Option.some(answer.value.value))))
          : Fiber.interrupt(running)
      )
    )
    const report = yield* Fiber.join(running).pipe(Effect.onInterrupt(() => stop))
    yield* Ref.set(resident.answered, true)
    yield* x.frame.close(report)
    return report
  })

/** A new process: launch, spawn, connect, then a new session or the saved one reopened. */
const startChild = <C, E, S>(x: ChildRun<C, E, S>) =>
  Effect.gen(function*() {
    const launched = yield* x.backend.launch(x.run).pipe(Effect.withSpan("OutOfProcess.launch", { attributes: x.attributes }))
    // W3C `TRACEPARENT` for any agent that reads it (dsh children get it per prompt too).
    const traceparent = yield* Trace.currentTraceparent
    const plan = traceparent === undefined ? launched : { ...launched, env: { ...launched.env, TRACEPARENT: traceparent } }
    const commandLine = [plan.command, ...(plan.args ?? [])].join(" ")
    yield* x.meta.write({ command: commandLine, cwd: plan.cwd })
    // The child's scopes belong to the session tree: whatever happens to this run, the tree's end closes them.
    const processScope = yield* Scope.fork(yield* x.residents.scopeFor(x.context.lifetime), "sequential")
    yield* Ref.set(x.starting, Option.some({ processScope }))
    const child = yield* x.launcher.spawn(plan).pipe(Scope.provide(processScope), Effect.withSpan("OutOfProcess.spawn", { attributes: x.attributes }))
    // Forked after the spawn, so that a close of the process scope closes the connection first.
    const connectionScope = yield* Scope.fork(processScope, "sequential")
    yield* x.meta.write({ status: "running", pid: child.pid })
    const { connection, agentInfo } = yield* x.backend.connect({ child, plan, commandLine }, x.run).pipe(
      Scope.provide(connectionScope),
      Effect.withSpan("OutOfProcess.connect", { attributes: x.attributes })
    )
    yield* x.meta.write({ agentInfo })
    const resume = x.backend.resume
    const sessionId = yield* (resume !== undefined && Option.isSome(x.saved)
      ? resume.reopen(connection, x.saved.value, x.run)
      : x.backend.newSession(connection, x.run).pipe(
        Effect.tap((id) => (resume === undefined ? Effect.void : x.context.saveContinuation(resume.save(connection, id))))
      )).pipe(Effect.withSpan("OutOfProcess.session", { attributes: x.attributes }))
    const resident: Resident<C> = {
      connection,
      sessionId,
      child,
      plan,
      commandLine,
      agentInfo,
      processScope,
      connectionScope,
      answered: yield* Ref.make(false)
    }
    yield* Ref.set(x.current, Option.some(resident))
    yield* Ref.set(x.starting, Option.none())
    return resident
  })

/** The warm child of this handle, if one is kept (continue only). */
const warmChild = <C, E, S>(x: ChildRun<C, E, S>) =>
  Effect.gen(function*() {
    if (x.backend.resume === undefined || Option.isNone(x.saved)) return Option.none<Resident<C>>()
    const warm = yield* x.residents.take(x.context.lifetime, x.context.handle)
    if (Option.isNone(warm)) return warm
    const r = warm.value
    yield* Ref.set(x.current, warm)
    yield* x.meta.write({ command: r.commandLine, cwd: r.plan.cwd, status: "running", pid: r.child.pid, agentInfo: r.agentInfo })
    return warm
  })

/** After the record: the child is kept warm, or closed in the background. */
const releaseChild = <C, E, S>(x: ChildRun<C, E, S>, outcome: Vocabulary.ChildOutcome | undefined) =>
  Effect.gen(function*() {
    const half = yield* Ref.getAndSet(x.starting, Option.none())
    if (Option.isSome(half)) yield* x.residents.release(x.context.lifetime, closeResident({ processScope: half.value.processScope }))
    const resident = yield* Ref.getAndSet(x.current, Option.none())
    if (Option.isNone(resident)) return
    const r = resident.value
    const keep = x.backend.resume !== undefined && !x.residents.isZero(x.backend.keepAlive) && outcome?.status === "completed" &&
      (yield* Ref.get(r.answered))
    if (keep) return yield* x.residents.park(x.context.lifetime, x.context.handle, r, x.backend.keepAlive!)
    yield* x.residents.release(x.context.lifetime, closeResident({ ...r, exitGrace: r.plan.exitGrace }), r)
  })

/**
 * One run of an out-of-process child, start or continue. It owns, for every backend:
 * - record-and-forward: each event the child emits is appended to its transcript (text deltas
 *   excepted) and forwarded to its live observers;
 * - `meta.json`: `starting`, then command and cwd, pid and `running`, agentInfo, session id,
 *   and finally how the run ended (`endedAt`, `notes`);
 * - the cancel ladder: on interruption mid-turn, `cancel`, then up to `cancelGrace` for the
 *   child's own answer, then the turn is interrupted;
 * - exactly one cleanup, on success, failure and interruption alike: the open turn's
 *   `turn-end`, the final `meta.json`, a transcript sync — then the outcome is returned;
 * - the child's process afterwards, never delaying the outcome: a continuable child whose turn
 *   completed stays warm for `keepAlive` (the next `continue` takes it); any other is closed in
 *   the background of the session tree (connection, stdin, `exitGrace` for a child that
 *   answered, the launcher's ladder on its process group), and the tree's end closes them all,
 *   at once and in parallel, with short graces (the harness is exiting);
 * - the outcome of every fault: a typed error becomes `failed` with `describe(error)` as notes,
 *   a defect `failed` with its first line (the full cause logged once); both keep what the
 *   child said and used so far. Interruption propagates (the service records it).
 */
const runOutOfProcess = <C, E, S>(
  backend: OutOfProcessBackend<C, E, S>,
  launcher: ProcessLauncher.ProcessLauncherShape,
  residents: Residents<C>,
  context: Vocabulary.StartContext,
  prompt: string,
  saved: Option.Option<S>
): Effect.Effect<Vocabulary.ChildOutcome> =>
  Effect.gen(function*() {
    const run: OutOfProcessRun = { context, modelSpec: childModelSpec(context) }
    const attributes = { provider: backend.name, handle: context.handle, runId: context.runId }
    const transcript = context.store?.transcript
    const progress = yield* makeProgress
    const emit = (event: Events.AgentEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (transcript !== undefined && !Events.isEphemeral(event)) {
          yield* transcript.append(event).pipe(Effect.ignore({ log: "Warn", message: `could not record an event of ${context.handle}` }))
        }
        yield* progress.see(event)
        yield* context.onEvent(event)
      })
    const meta = yield* makeMetaWriter(context, run.modelSpec)
    const frame = yield* makeTurnFrame(backend.turnEvents, emit)
    const lastAnswer = yield* Ref.make(Option.none<TurnReport>())
    const x: ChildRun<C, E, S> = {
      backend,
      launcher,
      residents,
      context,
      saved,
      run,
      attributes,
      meta,
      frame,
      emit,
      lastAnswer,
      current: yield* Ref.make(Option.none<Resident<C>>()),
      starting: yield* Ref.make(Option.none<{ readonly processScope: Scope.Closeable }>())
    }

    /** So far: what the child said and used (for outcomes its runtime did not report). */
    const soFar = (status: Vocabulary.ChildOutcome["status"], notes: string): Effect.Effect<Vocabulary.ChildOutcome> =>
      Effect.gen(function*() {
        const answer = yield* Ref.get(lastAnswer)
        const output = Option.isSome(answer) && answer.value.output !== "" ? answer.value.output : yield* progress.output
        const usage = Option.isSome(answer) ? answer.value.usage : yield* progress.usage
        const cost = Option.isSome(answer) ? answer.value.cost : yield* progress.cost
        return { status, output, usage, ...(cost === undefined ? {} : { cost }), notes }
      })

    const body = Effect.gen(function*() {
      yield* frame.open(prompt)
      const warm = yield* warmChild(x)
      const resident = Option.isSome(warm) ? warm.value : yield* startChild(x)
      yield* meta.write({ sessionId: resident.sessionId })

      let report = yield* childTurn(x, resident, prompt)
      let usage = report.usage
      let cost = report.cost
      // A continuable child hears the messages sent while it ran as further turns (warm).
      while (backend.resume !== undefined && report.status === "completed") {
        const queued = yield* context.takeMessages
        if (queued.length === 0) break
        for (const message of queued) {
          report = yield* childTurn(x, resident, message)
          usage = Usage.addUsage(usage, report.usage)
          cost = addCost(cost, report.cost)
        }
      }
      return { status: report.status, output: report.output, usage, ...(cost === undefined ? {} : { cost }), notes: report.notes } satisfies Vocabulary.ChildOutcome
    })

    /** The record of the run: the open turn's end, meta.json's ending, a transcript sync. */
    const cleanup = (outcome: Vocabulary.ChildOutcome) =>
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
        Exit.isSuccess(exit)
          ? cleanup(exit.value).pipe(Effect.andThen(releaseChild(x, exit.value)))
          : Effect.flatMap(soFar("cancelled", "cancelled"), (o) => cleanup(o).pipe(Effect.andThen(releaseChild(x, undefined))))
      )
    )
  })
