import { AgentHost } from "@dsh/agent"
import { type AgentEvent, emptyUsage } from "@dsh/core"
import { answerRunKeys, eventWriter, inLineMode, openRequestedSession, OUTPUT_FORMATS, type OutputFormat, readsKeys, storeFailedSummary, terminalKeys, writeLine, writeSummary } from "@dsh/harness"
import { SessionStore, StoreTrouble } from "@dsh/session"
import { fileLogger } from "@dsh/telemetry/file-log"
import { isLiveTerminal, liveTreeView, makeAgentTree } from "@dsh/view"
import { Effect } from "effect"
import { isAbsolute, join, resolve } from "node:path"
import { oneOf, onlyOnce, parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { cliAsker, PERMISSION_FLAGS, type PermissionFlags, readPermissionFlags } from "../Permissions.ts"
import { Asker } from "@dsh/tools"
import { residentLostReason } from "../ResidentLost.ts"
import { RunGate } from "../RunGate.ts"

const FLAGS = {
  print: { type: "boolean", short: "p" },
  agent: { type: "string" },
  "agent-file": { type: "string", multiple: true },
  model: { type: "string" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  "output-format": { type: "string" },
  cwd: { type: "string" },
  "max-steps": { type: "string" },
  "trust-project": { type: "boolean" },
  "plugin-dir": { type: "string", multiple: true },
  ...PERMISSION_FLAGS
} as const

const readStdin = (ctx: CliContext): Effect.Effect<string> =>
  ctx.stdin.isTTY === true
    ? Effect.succeed("")
    : Effect.promise(async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of ctx.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
      return Buffer.concat(chunks).toString("utf8")
    })

export interface RunInput {
  readonly prompt: string
  readonly format: OutputFormat
  readonly cwd: string
  readonly model?: string | undefined
  readonly agent?: string | undefined
  readonly agentFile?: string | undefined
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly maxSteps?: number | undefined
  readonly trustProject?: boolean | undefined
  /** `--plugin-dir` (repeatable): plugins enabled for the new session (absolute paths). */
  readonly plugins?: ReadonlyArray<string> | undefined
  /** `-p`: print the result; no questions are asked (an `ask` is a denial). */
  readonly print?: boolean | undefined
  /** `--permission-mode`, `--allow`, `--deny`, `--yolo`. */
  readonly permissions?: PermissionFlags | undefined
  /** A live view of events (used by `dsh demo`); stream-json output is handled here. */
  readonly onEvent?: ((event: AgentEvent) => Effect.Effect<void>) | undefined
}

export const parseRunArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "run")
    const format = yield* oneOf(values["output-format"], OUTPUT_FORMATS, "--output-format", "text")
    // One agent file per run, as in Kimi Code: the flag is not repeatable.
    const agentFile = yield* onlyOnce(values["agent-file"], "--agent-file")
    if (values.agent !== undefined && agentFile !== undefined) {
      return yield* new UsageError({ message: "use either --agent or --agent-file, not both" })
    }
    if ((values.agent !== undefined || agentFile !== undefined) &&
      (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--agent/--agent-file choose a new session's agent; they cannot be used with --session or --continue" })
    }
    const plugins = (values["plugin-dir"] ?? []).map((d) => resolve(ctx.cwd, d))
    // Plugins are bound with the agent when the session is created, and come back with it.
    if (plugins.length > 0 && (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--plugin-dir enables plugins for a new session; a continued session keeps those it was created with" })
    }
    let maxSteps: number | undefined
    if (values["max-steps"] !== undefined) {
      maxSteps = Number(values["max-steps"])
      if (!Number.isInteger(maxSteps) || maxSteps < 1) {
        return yield* new UsageError({ message: `--max-steps must be a positive integer (got "${values["max-steps"]}")` })
      }
    }
    const prompt = positionals.length > 0 ? positionals.join(" ") : (yield* readStdin(ctx)).trim()
    if (prompt === "") return yield* new UsageError({ message: "run: a prompt is required (dsh run \"prompt\")" })
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    const permissions = yield* readPermissionFlags(values)
    return {
      prompt,
      format,
      cwd,
      model: values.model,
      agent: values.agent,
      agentFile: agentFile === undefined ? undefined : resolve(ctx.cwd, agentFile),
      session: values.session,
      continue: values.continue,
      maxSteps,
      trustProject: values["trust-project"],
      plugins: plugins.length === 0 ? undefined : plugins,
      print: values.print,
      permissions
    } satisfies RunInput
  })

/**
 * `dsh run`: everything the user gave is checked (cwd, session, model, agent) before a
 * session is created, so bad input leaves nothing behind.
 */
export const executeRun = (input: RunInput, ctx: CliContext) =>
  Effect.gen(function*() {
    const host = yield* AgentHost
    const trouble = yield* StoreTrouble
    const existing = yield* openRequestedSession({ session: input.session, continue: input.continue, cwd: input.cwd, model: input.model, notice: (line) => writeLine(ctx.stderr, `dsh: warning: ${line}`) })
    const extra = { ...(input.agentFile === undefined ? {} : { agentFile: input.agentFile }), ...(input.trustProject === true ? { trustProject: true } : {}), ...(input.plugins === undefined ? {} : { plugins: input.plugins }) }
    const session = existing ?? (yield* (yield* SessionStore).open((yield* host.createSession({ cwd: input.cwd, agent: input.agent, model: input.model, extra })).id))
    // Beside the session on disk; under $DSH_HOME/logs/sessions/ when the session is in a database.
    const logger = fileLogger(join(isAbsolute(session.location) ? session.location : join(ctx.home, "logs", "sessions", session.id), "dsh.log"), { deferred: true })
    logger.info({ prompt: input.prompt.slice(0, 200), model: input.model }, "run start")
    const forward = eventWriter(input.format, ctx.stdout)
    // With --cluster: a live runner first (a signal meanwhile cancels the run at once).
    const gate = yield* Effect.raceFirst(
      Effect.result(yield* RunGate),
      Effect.as(ctx.interrupted, undefined)
    )
    if (gate === undefined || gate._tag === "Failure") {
      const summary = { sessionId: session.id, status: gate === undefined ? "cancelled" as const : "failed" as const, result: "", usage: emptyUsage, subagents: [] }
      logger.info({ status: summary.status }, "run end")
      yield* writeSummary(input.format, ctx.stdout, summary)
      return yield* new RunFailed({ message: gate === undefined ? "run cancelled" : gate.failure.message })
    }
    // On a terminal, text output draws the live tree of the agents (and leaves it with a summary).
    const live = input.format === "text" && input.onEvent === undefined && isLiveTerminal(ctx.stdout, ctx.env)
    // Questions go to the terminal (one at a time, naming the agent), or nowhere: then `ask` denies.
    const ended = yield* Effect.scoped(Effect.gen(function*() {
      const state = yield* session.readState
      const view = live ? yield* liveTreeView(ctx.stdout, makeAgentTree({ agent: state.agent, model: input.model ?? state.model }), ctx.env) : undefined
      // On an interactive terminal single keys act: Ctrl+B moves the running foreground children to the background.
      const keys = readsKeys(ctx.stdin, ctx.stderr, input.print === true) ? yield* terminalKeys(ctx.stdin) : undefined
      if (keys !== undefined) yield* Effect.forkScoped(answerRunKeys(keys, (line) => writeLine(ctx.stderr, `dsh: ${line}`), () => host.detachChild?.({ sessionId: session.id, handle: "all" })))
      return yield* host.prompt({
        sessionId: session.id,
        prompt: input.prompt,
        // A model given when continuing applies from now on.
        model: existing === undefined ? undefined : input.model,
        maxSteps: input.maxSteps,
        cancel: ctx.interrupted,
        onEvent: (event) => Effect.andThen(forward(event), view?.apply("main", event) ?? input.onEvent?.(event) ?? Effect.void),
        ...(view === undefined ? {} : { onChildEvent: view.apply })
      }).pipe(Effect.provideService(Asker, inLineMode(cliAsker(ctx, input.print === true), keys)))
    })).pipe(
      // The store failing mid-run is the run failing: said once, and still one summary.
      Effect.catch((error) => {
        const cause = error._tag === "SessionError" ? error.message : trouble.first()
        return cause === undefined ? Effect.fail(error) : Effect.succeed(storeFailedSummary(session, cause))
      }),
      Effect.map((s) => (s.status === "completed" && trouble.first() !== undefined ? storeFailedSummary(session, trouble.first()!, s) : s))
    )
    const lost = residentLostReason()
    // The resident went away under this start: a failed run, its session left as a killed dsh
    // leaves one (recorded running, and no owner once this process ends: read as lost).
    if (lost !== undefined) yield* session.updateState((s) => ({ ...s, status: "running" }))
    const summary = lost === undefined ? ended : { ...ended, status: "failed" as const, error: lost }
    logger.info({ status: summary.status, usage: summary.usage, error: summary.error }, "run end")
    yield* writeSummary(input.format, ctx.stdout, summary)
    if (summary.status !== "completed") {
      const line = trouble.first() === undefined ? `run ${summary.status}: ${summary.error ?? "no result"}` : `run failed: ${summary.error}`
      return yield* new RunFailed({ message: `${line}${trouble.count() > 1 ? ` (${trouble.count()} store failures; see ${join(ctx.home, "logs", "dsh.log")})` : ""}` })
    }
    return summary
  })

/** `dsh run`: the flags are read before the host is built (they join its permission rules). */
