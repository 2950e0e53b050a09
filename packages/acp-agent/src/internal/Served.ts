import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { AgentHost } from "@dsh/agent"
import { Trace } from "@dsh/core"
import { Asker, Permissions, type Tool } from "@dsh/tools"
import { Cause, Deferred, Effect, Exit, Option, Scope } from "effect"
import { AcpServeError } from "../AcpServeError.ts"
import { clientAsker } from "./Permission.ts"
import { promptParts } from "./PromptParts.ts"
import { type ClientFeatures, makeReporter } from "./Reporter.ts"
import { acpUsage, promptText } from "./Updates.ts"

/** Where progress is logged (`AcpLogger` of `serveAcp`). */
type InfoLog = { readonly info: (fields: object, message: string) => void } | undefined

/** One served session: at most one prompt runs at a time. */
export interface ServedSession {
  readonly id: string
  readonly cwd: string
  /** The running prompt's cancel: the host stops its turns and answers with what they said and spent. */
  running: Deferred.Deferred<void> | undefined
  /**
   * The session's rules when the host has none of its own (`default` mode: everything that
   * changes something is asked); a host with rules provides its own inside the prompt.
   */
  permissions: Permissions.PermissionsShape | undefined
  /** The tools of the MCP servers the client gave this session, and the scope of their connections. */
  mcp: { readonly tools: ReadonlyArray<Tool.AnyTool>; readonly scope: Scope.Closeable } | undefined
}

export const hostFailure = (error: AgentHost.HostError): AcpServeError =>
  new AcpServeError({
    reason: error.reason === "NotFound" ? "SessionNotFound"
      : error.reason === "Busy" ? "Busy"
      : error.reason === "InvalidInput" || error.reason === "Unsupported" ? "InvalidParams"
      : "Failed",
    message: error.message
  })

/** A step-limit failure is ACP's `max_turn_requests`; other failures are errors, not stop reasons. */
const stopReasonOf = (result: AgentHost.HostPromptResult): Effect.Effect<acp.StopReason, AcpServeError> => {
  switch (result.status) {
    case "completed":
      return Effect.succeed("end_turn")
    case "cancelled":
      return Effect.succeed("cancelled")
    default:
      return (result.error ?? "").includes("step limit")
        ? Effect.succeed("max_turn_requests")
        : Effect.fail(new AcpServeError({ reason: "Failed", message: result.error ?? `the turn ended ${result.status}` }))
  }
}

/** The session's MCP servers (again, on a load): connected now, refused loudly when that fails. */
export const connectServers = (
  session: ServedSession,
  servers: ReadonlyArray<acp.McpServer>,
  serveScope: Scope.Scope,
  connect: ((servers: ReadonlyArray<acp.McpServer>) => Effect.Effect<ReadonlyArray<Tool.AnyTool>, string, Scope.Scope>) | undefined,
  log: InfoLog
): Effect.Effect<void, AcpServeError> =>
  Effect.gen(function*() {
    if (session.mcp !== undefined) yield* Scope.close(session.mcp.scope, Exit.void)
    session.mcp = undefined
    if (servers.length === 0) return
    if (connect === undefined) {
      return yield* new AcpServeError({ reason: "InvalidParams", message: `this agent cannot connect MCP servers (${servers.map((s) => s.name).join(", ")})` })
    }
    const scope = yield* Scope.fork(serveScope, "sequential")
    const tools = yield* connect(servers).pipe(
      Scope.provide(scope),
      Effect.tapError(() => Scope.close(scope, Exit.void)),
      Effect.mapError((message) => new AcpServeError({ reason: "InvalidParams", message }))
    )
    session.mcp = { tools, scope }
    log?.info({ sessionId: session.id, servers: servers.map((s) => s.name), tools: tools.map((t) => t.name) }, "MCP servers connected")
  })

/** One `session/prompt` of a known session, with the client's features as they are now. */
export const runPrompt = (input: {
  readonly host: AgentHost.AgentHostShape
  readonly session: ServedSession
  readonly params: acp.PromptRequest
  readonly client: acp.AgentContext
  readonly features: ClientFeatures
  readonly contextWindow: number | undefined
  readonly log: InfoLog
}): Effect.Effect<acp.PromptResponse, AcpServeError> =>
  Effect.gen(function*() {
    const { host, session, params, client } = input
    if (session.running !== undefined) {
      return yield* new AcpServeError({ reason: "Busy", message: `session ${session.id} is already running a prompt` })
    }
    const text = promptText(params.prompt)
    const parts = promptParts(params.prompt)
    if (text.trim() === "" && parts === undefined) return yield* new AcpServeError({ reason: "InvalidParams", message: "the prompt has no text" })
    const cancel = yield* Deferred.make<void>()
    session.running = cancel
    session.permissions ??= yield* Permissions.make({ mode: "default" }).pipe(Effect.orDie)
    const reporter = makeReporter({ client, sessionId: session.id, cwd: session.cwd, features: input.features, contextWindow: input.contextWindow })
    // A cancel goes through the host, which answers with what the turn said and spent so far.
    const exit = yield* host.prompt({ sessionId: session.id, prompt: text, promptParts: parts, onEvent: reporter.main, onChildEvent: reporter.child, cancel: Deferred.await(cancel), tools: session.mcp?.tools }).pipe(
      // A dsh parent's trace context: this turn's spans are children of its `execute_tool subagent`.
      Trace.withTraceparent(params._meta?.[Trace.TRACEPARENT_META]),
      // Questions of every agent of the tree go to this client.
      Effect.provideService(Asker.Asker, clientAsker({ client, reporter, cwd: session.cwd })),
      Effect.provideService(Permissions.Permissions, session.permissions),
      Effect.exit,
      // This turn's spans go out before the parent hears the answer (and may close this process).
      Effect.ensuring(Trace.flushTelemetry),
      Effect.ensuring(Effect.sync(() => (session.running = undefined)))
    )
    if (Exit.isFailure(exit)) {
      if (Cause.hasInterruptsOnly(exit.cause)) return { stopReason: "cancelled" } satisfies acp.PromptResponse
      const error = Cause.findErrorOption(exit.cause)
      return yield* (Option.isSome(error)
        ? Effect.fail(hostFailure(error.value))
        : Effect.fail(new AcpServeError({ reason: "Failed", message: Cause.pretty(exit.cause).split("\n")[0] ?? "the prompt crashed" })))
    }
    const stopReason = yield* stopReasonOf(exit.value)
    input.log?.info({ sessionId: session.id, stopReason, usage: exit.value.usage }, "prompt ended")
    return { stopReason, usage: acpUsage(exit.value.usage) } satisfies acp.PromptResponse
  })
