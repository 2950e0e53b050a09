import { AgentHost } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import { RunOutput, SessionChoice, TerminalKeys } from "@dsh/harness"
import { type SessionError, SessionStore, StoreTrouble } from "@dsh/session"
import { fileLogger } from "@dsh/telemetry/file-log"
import { Asker } from "@dsh/tools"
import { AgentTree, LiveTree } from "@dsh/view"
import { Context, Data, Effect } from "effect"
import type { Readable } from "node:stream"
import { isAbsolute, join } from "node:path"

/** One run: a prompt for a new session (its agent, agent file, plugins) or a continued one. */
export interface RunRequest {
  readonly prompt: string
  readonly format: RunOutput.OutputFormat
  readonly cwd: string
  readonly model?: string | undefined
  readonly agent?: string | undefined
  readonly agentFile?: string | undefined
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly maxSteps?: number | undefined
  readonly trustProject?: boolean | undefined
  /** Plugins enabled for a new session (absolute paths). */
  readonly plugins?: ReadonlyArray<string> | undefined
  /** `-p`: print the result; no single keys are read. */
  readonly print?: boolean | undefined
  /** A live view of events of your own; stream-json output is written by the run. */
  readonly onEvent?: ((event: Events.AgentEvent) => Effect.Effect<void>) | undefined
}

/** Where a run reads and writes: a terminal (`isTTY`) gets the live tree and single keys. */
export interface RunTerminal {
  readonly env: NodeJS.ProcessEnv
  /** `$DSH_HOME`: the logs of sessions kept in a database go under it. */
  readonly home: string
  readonly stdout: LiveTree.TerminalOut
  readonly stderr: LiveTree.TerminalOut
  readonly stdin: Readable & { readonly isTTY?: boolean | undefined }
  /** Completes when the user stops the run (a signal): it ends `cancelled`. */
  readonly interrupted: Effect.Effect<void>
}

/** A run that did not complete: its summary is written; `message` is the one line that says why. */
export class RunFailed extends Data.TaggedError("RunFailed")<{ readonly message: string }> {}

/**
 * What a run waits for before its prompt starts: nothing, or (on a cluster) a live runner. A
 * failure is the run's: its message is the one line of a failed run.
 */
export const RunGate = Context.Reference<Effect.Effect<void, { readonly message: string }>>("@dsh/kit/RunGate", {
  defaultValue: () => Effect.void
})

/**
 * A run as `dsh run` does it: everything given is checked (session, model, agent) before a
 * session is created, so bad input leaves nothing behind; events are written in `format`, on a
 * terminal as the live tree of the agents, with Ctrl+B moving running foreground children to
 * the background; questions go to `asker`. The store failing mid-run is the run failing, said
 * once, with one summary. `lost` says the process serving the run went away under it.
 */
export const run = (
  request: RunRequest,
  terminal: RunTerminal,
  asker: Asker.AskerShape,
  lost: () => string | undefined = () => undefined
): Effect.Effect<AgentHost.HostPromptResult, RunFailed | AgentHost.HostError | SessionError.SessionError, AgentHost.AgentHost | StoreTrouble.StoreTrouble | SessionStore.SessionStore> =>
  Effect.gen(function*() {
    const host = yield* AgentHost.AgentHost
    const trouble = yield* StoreTrouble.StoreTrouble
    const warn = (line: string) => RunOutput.writeLine(terminal.stderr, `dsh: warning: ${line}`)
    const existing = yield* SessionChoice.openRequestedSession({ session: request.session, continue: request.continue, cwd: request.cwd, model: request.model, notice: warn })
    const extra = { ...(request.agentFile === undefined ? {} : { agentFile: request.agentFile }), ...(request.trustProject === true ? { trustProject: true } : {}), ...(request.plugins === undefined ? {} : { plugins: request.plugins }) }
    const session = existing ?? (yield* (yield* SessionStore.SessionStore).open((yield* host.createSession({ cwd: request.cwd, agent: request.agent, model: request.model, extra })).id))
    // Beside the session on disk; under $DSH_HOME/logs/sessions/ when the session is in a database.
    const logger = fileLogger(join(isAbsolute(session.location) ? session.location : join(terminal.home, "logs", "sessions", session.id), "dsh.log"), { deferred: true })
    logger.info({ prompt: request.prompt.slice(0, 200), model: request.model }, "run start")
    const forward = RunOutput.eventWriter(request.format, terminal.stdout)
    // A gate first (a signal meanwhile cancels the run at once).
    const gate = yield* Effect.raceFirst(Effect.result(yield* RunGate), Effect.as(terminal.interrupted, undefined))
    if (gate === undefined || gate._tag === "Failure") {
      const summary = { sessionId: session.id, status: gate === undefined ? "cancelled" as const : "failed" as const, result: "", usage: Usage.emptyUsage, subagents: [] }
      logger.info({ status: summary.status }, "run end")
      yield* RunOutput.writeSummary(request.format, terminal.stdout, summary)
      return yield* new RunFailed({ message: gate === undefined ? "run cancelled" : gate.failure.message })
    }
    const live = request.format === "text" && request.onEvent === undefined && LiveTree.isLiveTerminal(terminal.stdout, terminal.env)
    const ended = yield* Effect.scoped(Effect.gen(function*() {
      const state = yield* session.readState
      const view = live ? yield* LiveTree.liveTreeView(terminal.stdout, AgentTree.make({ agent: state.agent, model: request.model ?? state.model }), terminal.env) : undefined
      const keys = TerminalKeys.readsKeys(terminal.stdin, terminal.stderr, request.print === true) ? yield* TerminalKeys.terminalKeys(terminal.stdin) : undefined
      if (keys !== undefined) yield* Effect.forkScoped(TerminalKeys.answerRunKeys(keys, (line) => RunOutput.writeLine(terminal.stderr, `dsh: ${line}`), () => host.detachChild?.({ sessionId: session.id, handle: "all" })))
      return yield* host.prompt({
        sessionId: session.id,
        prompt: request.prompt,
        // A model given when continuing applies from now on.
        model: existing === undefined ? undefined : request.model,
        maxSteps: request.maxSteps,
        cancel: terminal.interrupted,
        onEvent: (event) => Effect.andThen(forward(event), view?.apply("main", event) ?? request.onEvent?.(event) ?? Effect.void),
        ...(view === undefined ? {} : { onChildEvent: view.apply })
      }).pipe(Effect.provideService(Asker.Asker, TerminalKeys.inLineMode(asker, keys)))
    })).pipe(
      Effect.catch((error) => {
        const cause = error._tag === "SessionError" ? error.message : trouble.first()
        return cause === undefined ? Effect.fail(error) : Effect.succeed(RunOutput.storeFailedSummary(session, cause))
      }),
      Effect.map((s) => (s.status === "completed" && trouble.first() !== undefined ? RunOutput.storeFailedSummary(session, trouble.first()!, s) : s))
    )
    const gone = lost()
    // Gone under this run: a failed run, its session left as a killed dsh leaves one (recorded
    // running, and no owner once this process ends: read as lost).
    if (gone !== undefined) yield* session.updateState((s) => ({ ...s, status: "running" }))
    const summary = gone === undefined ? ended : { ...ended, status: "failed" as const, error: gone }
    logger.info({ status: summary.status, usage: summary.usage, error: summary.error }, "run end")
    yield* RunOutput.writeSummary(request.format, terminal.stdout, summary)
    if (summary.status !== "completed") {
      const line = trouble.first() === undefined ? `run ${summary.status}: ${summary.error ?? "no result"}` : `run failed: ${summary.error}`
      return yield* new RunFailed({ message: `${line}${trouble.count() > 1 ? ` (${trouble.count()} store failures; see ${join(terminal.home, "logs", "dsh.log")})` : ""}` })
    }
    return summary
  })
