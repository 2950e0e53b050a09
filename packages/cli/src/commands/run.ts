import { AgentHost } from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { SessionStore } from "@dsh/session"
import { Effect } from "effect"
import { isAbsolute, join, resolve } from "node:path"
import { oneOf, parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { fileLogger } from "../Logger.ts"
import { eventWriter, OUTPUT_FORMATS, type OutputFormat, writeSummary } from "../Output.ts"
import { openRequestedSession } from "../Session.ts"

const FLAGS = {
  print: { type: "boolean", short: "p" },
  agent: { type: "string" },
  "agent-file": { type: "string" },
  model: { type: "string" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  "output-format": { type: "string" },
  cwd: { type: "string" },
  "max-steps": { type: "string" },
  "trust-project": { type: "boolean" }
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
  /** A live view of events (used by `dsh demo`); stream-json output is handled here. */
  readonly onEvent?: ((event: AgentEvent) => Effect.Effect<void>) | undefined
}

export const parseRunArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "run")
    const format = yield* oneOf(values["output-format"], OUTPUT_FORMATS, "--output-format", "text")
    if (values.agent !== undefined && values["agent-file"] !== undefined) {
      return yield* new UsageError({ message: "use either --agent or --agent-file, not both" })
    }
    if ((values.agent !== undefined || values["agent-file"] !== undefined) &&
      (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--agent/--agent-file choose a new session's agent; they cannot be used with --session or --continue" })
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
    return {
      prompt,
      format,
      cwd,
      model: values.model,
      agent: values.agent,
      agentFile: values["agent-file"] === undefined ? undefined : resolve(ctx.cwd, values["agent-file"]),
      session: values.session,
      continue: values.continue,
      maxSteps,
      trustProject: values["trust-project"]
    } satisfies RunInput
  })

/**
 * `dsh run`: everything the user gave is checked (cwd, session, model, agent) before a
 * session is created, so bad input leaves nothing behind.
 */
export const executeRun = (input: RunInput, ctx: CliContext) =>
  Effect.gen(function*() {
    const host = yield* AgentHost
    const existing = yield* openRequestedSession({ session: input.session, continue: input.continue, cwd: input.cwd })
    const extra = { ...(input.agentFile === undefined ? {} : { agentFile: input.agentFile }), ...(input.trustProject === true ? { trustProject: true } : {}) }
    const session = existing ?? (yield* (yield* SessionStore).open((yield* host.createSession({ cwd: input.cwd, agent: input.agent, model: input.model, extra })).id))
    // Beside the session on disk; under $DSH_HOME/logs/sessions/ when the session is in a database.
    const logger = fileLogger(join(isAbsolute(session.location) ? session.location : join(ctx.home, "logs", "sessions", session.id), "dsh.log"))
    logger.info({ prompt: input.prompt.slice(0, 200), model: input.model }, "run start")
    const forward = eventWriter(input.format, ctx.stdout)
    const summary = yield* host.prompt({
      sessionId: session.id,
      prompt: input.prompt,
      // A model given when continuing applies from now on.
      model: existing === undefined ? undefined : input.model,
      maxSteps: input.maxSteps,
      cancel: ctx.interrupted,
      onEvent: (event) => Effect.andThen(forward(event), input.onEvent?.(event) ?? Effect.void)
    })
    logger.info({ status: summary.status, usage: summary.usage, error: summary.error }, "run end")
    yield* writeSummary(input.format, ctx.stdout, summary)
    if (summary.status !== "completed") {
      return yield* new RunFailed({ message: `run ${summary.status}: ${summary.error ?? "no result"}` })
    }
    return summary
  })

export const runCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  parseRunArgs(args, ctx).pipe(Effect.flatMap((input) => executeRun(input, ctx)))
