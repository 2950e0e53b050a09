import type * as acp from "@agentclientprotocol/sdk/unstable"
import { type AgentEvent, emptyUsage, isEphemeral, makeUsage, type Usage, VERSION } from "@dsh/core"
import type { ChildOutcome, StartContext, SubagentBackend, SubagentProvider } from "@dsh/subagent"
import { ProcessLauncher, type ProcessLauncherShape } from "@dsh/subprocess"
import { Approval } from "@dsh/tools"
import { Cause, Duration, Effect, Exit, Fiber, Option, Queue, type Scope } from "effect"
import { isAbsolute, resolve } from "node:path"
import { ACP_PROVIDER, type AcpAgentConfig, acpAgentTypes, type AcpLaunchAdditions, acpTypeName } from "./AcpAgentConfig.ts"
import { AcpChildError } from "./AcpChildError.ts"
import { makeChildTurn, toolNameOf } from "./internal/ChildTurn.ts"
import { type ChildConnection, connectChild, permissionFromApproval, type TapItem } from "./internal/Connection.ts"
import { loadAcpSdk } from "./internal/Sdk.ts"

export interface AcpProviderOptions {
  /** The ACP agents this provider runs, by type name `acp:<name>`. */
  readonly agents: ReadonlyArray<AcpAgentConfig>
  /** Where `passEnv` names are read from. Default `process.env`. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | undefined
  /** How long an agent may take to answer `initialize` (readiness). Default 20 seconds. */
  readonly initializeTimeout?: Duration.Input | undefined
  /** After `session/cancel`, how long to wait for the `cancelled` answer before stopping the process. Default 2 seconds. */
  readonly cancelGrace?: Duration.Input | undefined
  /** SIGTERM → SIGKILL grace for the agent's process group. Default: the launcher's. */
  readonly killGrace?: Duration.Input | undefined
  /** The largest frame accepted from an agent. Default 16 MiB. */
  readonly maxMessageBytes?: number | undefined
}

const DEFAULT_INITIALIZE_TIMEOUT: Duration.Input = "20 seconds"
const DEFAULT_CANCEL_GRACE: Duration.Input = "2 seconds"
/** How long a finished agent gets to exit on its own after stdin closes, before the ladder. */
const EXIT_GRACE: Duration.Input = "1 second"

const pickEnv = (from: Readonly<Record<string, string | undefined>>, names: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(from)) {
    if (v !== undefined && names.some((n) => (n.endsWith("*") ? k.startsWith(n.slice(0, -1)) : k === n))) out[k] = v
  }
  return out
}

const failed = (notes: string, usage: Usage = emptyUsage, output = ""): ChildOutcome => ({ status: "failed", output, usage, notes })

/** What a stop reason means for the parent: the runtime decides the status, never the text. */
const outcomeOf = (stop: acp.StopReason, output: string, usage: Usage, weCancelled: boolean): ChildOutcome => {
  switch (stop) {
    case "end_turn":
      return { status: "completed", output, usage }
    case "max_tokens":
      return { status: "completed", output, usage, notes: "the agent stopped at its output token limit (max_tokens); the result may be cut short" }
    case "max_turn_requests":
      return failed("the agent reached its limit of model requests for one turn (max_turn_requests)", usage, output)
    case "refusal":
      return failed("the agent refused the task (refusal)", usage, output)
    case "cancelled":
      return weCancelled ? { status: "cancelled", output, usage } : failed("the agent cancelled its own turn", usage, output)
  }
}

/**
 * The `acp` backend: a one-shot child in its own process, any ACP agent. Per run: spawn the
 * configured command through the `ProcessLauncher` (scrubbed environment plus the variables
 * passed explicitly, own process group), `initialize` (the readiness signal, bounded),
 * `session/new` in the parent's cwd, `session/prompt` with the task. Streamed text becomes
 * the result; text, tool calls, usage and permission decisions go to the child's transcript.
 * Permission requests are answered by the calling fiber's `Approval`. Interruption (cancel,
 * timeout) sends `session/cancel`, waits a short grace, then the process tree is stopped.
 * Every fault (spawn, silence, garbage, early exit) ends as `failed` with notes.
 */
export const makeAcpProvider = (options: AcpProviderOptions): Effect.Effect<SubagentProvider, never, ProcessLauncher> =>
  Effect.gen(function*() {
    return makeAcpProviderWith(yield* ProcessLauncher, options)
  })

/** The provider with the `acp:<name>` type of each of its agents, as a harness registers it. */
export const makeAcpBackend = (options: AcpProviderOptions): Effect.Effect<SubagentBackend, never, ProcessLauncher> =>
  Effect.map(makeAcpProvider(options), (provider) => ({ provider, types: acpAgentTypes(options.agents) }))

/** The same, with an explicit launcher. */
export const makeAcpProviderWith = (launcher: ProcessLauncherShape, options: AcpProviderOptions): SubagentProvider => {
  const byType = new Map(options.agents.map((a) => [acpTypeName(a.name), a]))
  return {
    name: ACP_PROVIDER,
    description: "an out-of-process child driven over the Agent Client Protocol (any ACP agent command)",
    start: (context) =>
      runChild(launcher, options, byType, context).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.succeed(failed(`the ACP backend crashed: ${Cause.pretty(cause).split("\n")[0]}`))
        )
      )
  }
}

const runChild = (
  launcher: ProcessLauncherShape,
  options: AcpProviderOptions,
  byType: ReadonlyMap<string, AcpAgentConfig>,
  context: StartContext
): Effect.Effect<ChildOutcome> =>
  Effect.scoped(Effect.gen(function*() {
    const agent = byType.get(context.type.name)
    if (agent === undefined) return failed(`no ACP agent is configured for "${context.type.name}"`)
    const approval = yield* Approval
    const startedAt = Date.now()
    const transcript = context.store?.transcript
    const record = (event: AgentEvent): Effect.Effect<void> =>
      Effect.andThen(
        transcript !== undefined && !isEphemeral(event) ? transcript.append(event).pipe(Effect.ignore) : Effect.void,
        context.onEvent(event)
      )
    const cwd = agent.cwd === undefined || agent.cwd === "parent"
      ? context.parent.cwd
      : isAbsolute(agent.cwd) ? agent.cwd : resolve(context.parent.cwd, agent.cwd)
    const turn = makeChildTurn()
    let meta: Record<string, unknown> = {
      handle: context.handle,
      runId: context.runId,
      agent: context.type.name,
      provider: ACP_PROVIDER,
      cwd,
      status: "starting",
      startedAt: new Date(startedAt).toISOString()
    }
    const writeMeta = (patch: Record<string, unknown>) =>
      Effect.suspend(() => {
        meta = { ...meta, ...patch }
        return context.store === undefined ? Effect.void : context.store.writeMeta(meta).pipe(Effect.ignore)
      })
    let weCancelled = false
    let usage: Usage = emptyUsage
    let stopConsumer: Effect.Effect<void> = Effect.void

    /** The one cleanup per run: the rest of the turn, usage, `turn-end`, meta and an fsync. */
    const finish = (exit: Exit.Exit<ChildOutcome, AcpChildError>) =>
      Effect.gen(function*() {
        yield* stopConsumer
        for (const event of turn.finish()) yield* record(event)
        const outcome: ChildOutcome = Exit.isSuccess(exit)
          ? exit.value
          : Cause.hasInterruptsOnly(exit.cause)
          ? { status: "cancelled", output: turn.result(), usage, notes: "cancelled" }
          : failed(`the ACP backend crashed: ${Cause.pretty(exit.cause).split("\n")[0]}`, usage, turn.result())
        if (outcome.usage.totalTokens > 0) yield* record({ type: "usage", model: context.type.name, usage: outcome.usage })
        yield* record({
          type: "turn-end",
          turn: 0,
          status: outcome.status,
          result: outcome.output,
          usage: outcome.usage,
          durationMs: Date.now() - startedAt,
          ...(outcome.notes === undefined ? {} : { error: outcome.notes })
        })
        yield* writeMeta({ status: outcome.status, endedAt: new Date().toISOString(), ...(outcome.notes === undefined ? {} : { notes: outcome.notes }) })
        if (transcript !== undefined) yield* transcript.sync.pipe(Effect.ignore)
      })

    const body: Effect.Effect<ChildOutcome, AcpChildError, Scope.Scope> = Effect.gen(function*() {
      const sdk = yield* loadAcpSdk
      yield* record({ type: "turn-start", turn: 0, prompt: context.request.prompt })
      yield* record({ type: "message", message: { role: "user", content: context.request.prompt } })
      const prepare: Effect.Effect<AcpLaunchAdditions, string> = agent.prepare?.(context) ?? Effect.succeed({})
      const additions = yield* prepare.pipe(Effect.mapError((message) => new AcpChildError({ reason: "Setup", message })))
      const args = [...(agent.args ?? []), ...(additions.args ?? [])]
      const env = { ...pickEnv(options.parentEnv ?? process.env, agent.passEnv ?? []), ...agent.env, ...additions.env }
      const command = [agent.command, ...args].join(" ")
      yield* writeMeta({ command })
      const child = yield* launcher.spawn({ command: agent.command, args, cwd, env, killGrace: options.killGrace }).pipe(
        Effect.mapError((e) => new AcpChildError({ reason: "SpawnFailed", message: `cannot start the ACP agent: ${e.message}` }))
      )
      yield* writeMeta({ pid: child.pid, status: "running" })
      // Released after the connection closes (finalizers run in reverse): end stdin and, after a
      // finished turn, let the agent exit by itself; then the launcher's ladder takes the rest.
      let graceful = false
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => child.stdin?.end()).pipe(
          Effect.andThen(graceful ? Effect.timeoutOption(child.exit, EXIT_GRACE) : Effect.void),
          Effect.asVoid
        )
      )

      // One consumer applies the agent's updates and our own records in order (see TapItem).
      const tap = yield* Queue.unbounded<TapItem, Cause.Done>()
      let connection: ChildConnection | undefined
      const explain = (error: AcpChildError): Effect.Effect<AcpChildError> =>
        Effect.gen(function*() {
          const fault = connection?.fault()
          if (fault !== undefined) return new AcpChildError({ reason: "ProtocolViolation", message: `ACP protocol error: ${fault.detail}` })
          // An error answer on a live connection is the agent's own report; a closed one needs a reason.
          if (error.reason !== "RequestFailed" || connection?.closed() === false) return error
          const exited = yield* Effect.timeoutOption(child.exit, "1 second")
          if (Option.isNone(exited)) return error
          const how = exited.value.signal !== null ? `on signal ${exited.value.signal}` : `with code ${exited.value.exitCode ?? "?"}`
          const tail = (yield* child.stderrTail).trim()
          return new AcpChildError({
            reason: "ProcessExited",
            message: `the ACP agent exited ${how} ${meta.acpSessionId === undefined ? "before it was ready" : "in the middle of its turn"}` +
              (tail === "" ? "" : `; stderr: ${tail.slice(-2000)}`)
          })
        })
      const conn = yield* connectChild({
        child,
        tap,
        maxMessageBytes: options.maxMessageBytes ?? 16 * 1024 * 1024,
        decide: permissionFromApproval({
          approval,
          agent: context.handle,
          cwd,
          toolName: (request) => request.toolCall.name ?? turn.toolName(request.toolCall.toolCallId) ?? toolNameOf(request.toolCall),
          onDecision: (tool, allowed, reason) =>
            Effect.sync(() =>
              Queue.offerUnsafe(tap, {
                _tag: "event",
                event: { type: "notice", level: allowed ? "info" : "warning", message: `permission for ${tool}: ${allowed ? "allowed" : `denied (${reason})`}` }
              })
            )
        })
      })
      connection = conn
      const guarded = <A>(effect: Effect.Effect<A, AcpChildError>) => effect.pipe(Effect.catch((e) => Effect.flatMap(explain(e), Effect.fail)))

      const initTimeout = agent.initializeTimeout ?? options.initializeTimeout ?? DEFAULT_INITIALIZE_TIMEOUT
      const init = yield* guarded(conn.request("initialize", (a) =>
        a.request(sdk.methods.agent.initialize, {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "dsh", version: VERSION }
        })
      ).pipe(Effect.timeoutOption(initTimeout)))
      if (Option.isNone(init)) {
        return yield* new AcpChildError({
          reason: "InitializeTimeout",
          message: `the ACP agent did not answer initialize within ${Duration.format(Duration.fromInputUnsafe(initTimeout))}`
        })
      }
      yield* writeMeta({ agentInfo: init.value.agentInfo ?? undefined, protocolVersion: init.value.protocolVersion })
      const session = yield* guarded(conn.request("session/new", (a) => a.request(sdk.methods.agent.session.new, { cwd, mcpServers: [] })))
      const sessionId = session.sessionId
      yield* writeMeta({ acpSessionId: sessionId })

      // Updates are applied in wire order by one consumer; the turn's end waits for it to drain.
      const consumer = yield* Effect.forkScoped(Effect.gen(function*() {
        while (true) {
          const next = yield* Effect.option(Queue.take(tap))
          if (Option.isNone(next)) return
          const item = next.value
          if (item._tag === "event") yield* record(item.event)
          else if (item.notification.sessionId === sessionId) {
            for (const event of turn.update(item.notification.update)) yield* record(event)
          }
        }
      }))
      stopConsumer = Effect.sync(() => Queue.endUnsafe(tap)).pipe(
        Effect.andThen(Effect.timeoutOption(Fiber.join(consumer), "2 seconds")),
        Effect.asVoid
      )

      const pending = yield* Effect.sync(() =>
        conn.agent.request(sdk.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: context.request.prompt }] })
      )
      const response = yield* guarded(conn.request("session/prompt", () => pending)).pipe(
        Effect.onInterrupt(() =>
          Effect.gen(function*() {
            weCancelled = true
            yield* Effect.tryPromise(() => conn.agent.notify(sdk.methods.agent.session.cancel, { sessionId })).pipe(Effect.ignore)
            // The `cancelled` answer still carries the usage of the work done so far.
            const answer = yield* Effect.tryPromise(() => pending).pipe(Effect.timeoutOption(options.cancelGrace ?? DEFAULT_CANCEL_GRACE), Effect.option)
            const reported = Option.flatten(answer).pipe(Option.map((r) => r.usage), Option.getOrUndefined)
            if (reported != null) usage = makeUsage(reported.inputTokens, reported.outputTokens)
          })
        )
      )
      graceful = true
      const reported = response.usage
      usage = reported == null ? emptyUsage : makeUsage(reported.inputTokens, reported.outputTokens)
      yield* stopConsumer
      stopConsumer = Effect.void
      return outcomeOf(response.stopReason, turn.result(), usage, weCancelled)
    })

    return yield* body.pipe(
      Effect.catch((e: AcpChildError) => Effect.succeed(failed(e.message, usage, turn.result()))),
      Effect.onExit((exit) => finish(exit))
    )
  }))
