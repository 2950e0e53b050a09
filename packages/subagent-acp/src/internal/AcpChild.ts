import type * as acp from "@agentclientprotocol/sdk/unstable"
import { Trace, Version } from "@dsh/core"
import type { OutOfProcessBackend } from "@dsh/subagent-outofprocess"
import { InheritedDisallow, Permissions } from "@dsh/tools"
import { Deferred, Duration, Effect, Fiber, Option, Queue, Ref, type Scope } from "effect"
import { AcpChildError } from "../AcpChildError.ts"
import type { AcpContinuation } from "../AcpContinuation.ts"
import { type ChildTurn, makeChildTurn } from "./ChildTurn.ts"
import { type AskedCall, type ChildConnection, connectChild, type TapItem } from "./Connection.ts"
import { decidePermissionRequest } from "./PermissionRequest.ts"
import { type AcpSdk, loadAcpSdk } from "./Sdk.ts"

/** What the agent said it can do, in its `initialize` answer. */
export interface AgentAbilities {
  readonly loadSession: boolean
  readonly mcpHttp: boolean
  readonly mcpSse: boolean
}

/** One ACP agent process after `initialize`: the connection and what its turns share. */
export interface AcpChild {
  readonly sdk: AcpSdk
  readonly connection: ChildConnection
  readonly launched: OutOfProcessBackend.LaunchedChild
  readonly abilities: AgentAbilities
  /** The MCP servers passed in `session/new` and `session/load`. */
  readonly mcpServers: ReadonlyArray<acp.McpServer>
  /** The child's side of its turns, rebuilt from its `session/update`s. */
  readonly turn: ChildTurn
  /** Updates, permission requests and permission records in wire order, applied by each turn's consumer. */
  readonly tap: Queue.Queue<TapItem>
  /** The calls permission requests are about, handed from the turn's consumer to the request's answer. */
  readonly asked: Map<string, Deferred.Deferred<AskedCall>>
  /** Whether a session was opened: a death before it is "before it was ready". */
  readonly opened: Ref.Ref<boolean>
  /** Whether we asked the turn in flight to stop: its `cancelled` answer is then ours. */
  readonly cancelRequested: Ref.Ref<boolean>
  /** The `model` of the usage event of each turn (the agent type's name). */
  readonly usageLabel: string
  /** The tree's rules: they decide the agent's permission requests and go to `session/new` as `_meta`. */
  readonly permissions: Permissions.PermissionsShape
  /** Its ancestors' disallowedTools: they go to `session/new` as a deny layer even without rules. */
  readonly inheritedDisallowed: ReadonlyArray<string>
}

/**
 * Why a request failed, said as precisely as we can: a framing fault is a protocol error; an
 * error answer on a live connection is the agent's own report; a connection that closed under
 * the request is the process ending, with its exit status and stderr tail.
 */
const explain = (child: AcpChild, error: AcpChildError): Effect.Effect<AcpChildError> =>
  Effect.gen(function*() {
    const fault = child.connection.fault()
    if (fault !== undefined) return new AcpChildError({ reason: "ProtocolViolation", message: `ACP protocol error: ${fault.detail}` })
    if (error.reason !== "RequestFailed" || !child.connection.closed()) return error
    const process = child.launched.child
    const exited = yield* Effect.timeoutOption(process.exit, "1 second")
    if (Option.isNone(exited)) return error
    const how = exited.value.signal !== null ? `on signal ${exited.value.signal}` : `with code ${exited.value.exitCode ?? "?"}`
    const tail = (yield* process.stderrTail).trim()
    const when = (yield* Ref.get(child.opened)) ? "in the middle of its turn" : "before it was ready"
    return new AcpChildError({
      reason: "ProcessExited",
      message: `the ACP agent exited ${how} ${when}` + (tail === "" ? "" : `; stderr: ${tail.slice(-2000)}`)
    })
  })

const guarded = <A>(child: AcpChild, effect: Effect.Effect<A, AcpChildError>): Effect.Effect<A, AcpChildError> =>
  effect.pipe(Effect.catch((e) => Effect.flatMap(explain(child, e), Effect.fail)))

/** The handoff of one permission request's call between the turn's consumer and the request's answer. */
const askedFor = (asked: Map<string, Deferred.Deferred<AskedCall>>, toolCallId: string): Effect.Effect<Deferred.Deferred<AskedCall>> =>
  Effect.sync(() => {
    const handoff = asked.get(toolCallId) ?? Deferred.makeUnsafe<AskedCall>()
    asked.set(toolCallId, handoff)
    return handoff
  })

/**
 * The client side of an ACP agent the driver started: the connection over its stdio (strict
 * framing, permission requests decided by the calling fiber's `Permissions` on the call as the
 * turn merged it, and recorded as `permission` events), then `initialize` within
 * `initializeTimeout` — the readiness signal.
 */
export const connectAcpChild = (options: {
  readonly launched: OutOfProcessBackend.LaunchedChild
  readonly run: OutOfProcessBackend.OutOfProcessRun
  readonly initializeTimeout: Duration.Input
  readonly maxMessageBytes: number
  readonly mcpServers: ReadonlyArray<acp.McpServer>
}): Effect.Effect<OutOfProcessBackend.Connected<AcpChild>, AcpChildError, Scope.Scope> =>
  Effect.gen(function*() {
    const { launched, run } = options
    const sdk = yield* loadAcpSdk
    const permissions = yield* Permissions.Permissions
    const inheritedDisallowed = yield* InheritedDisallow.InheritedDisallowedTools
    const tap = yield* Queue.unbounded<TapItem>()
    const asked = new Map<string, Deferred.Deferred<AskedCall>>()
    const connection = yield* connectChild({
      child: launched.child,
      tap,
      maxMessageBytes: options.maxMessageBytes,
      decide: yield* decidePermissionRequest({
        permissions,
        agent: run.context.handle,
        cwd: launched.plan.cwd,
        // Its ancestors' disallowedTools bind it too (as deny rules when the tree has rules; here always).
        policy: { tools: run.context.type.definition.tools, disallowedTools: [...(run.context.type.definition.disallowedTools ?? []), ...inheritedDisallowed] },
        emit: (event) => Queue.offer(tap, { _tag: "event", event }).pipe(Effect.asVoid),
        // Waits until the turn has applied everything the child said before the request.
        callOf: (request) =>
          Effect.flatMap(askedFor(asked, request.toolCall.toolCallId), Deferred.await).pipe(
            Effect.ensuring(Effect.sync(() => asked.delete(request.toolCall.toolCallId)))
          )
      })
    })
    const child: AcpChild = {
      sdk,
      connection,
      launched,
      abilities: { loadSession: false, mcpHttp: false, mcpSse: false },
      mcpServers: options.mcpServers,
      turn: makeChildTurn(),
      tap,
      asked,
      opened: yield* Ref.make(false),
      cancelRequested: yield* Ref.make(false),
      usageLabel: run.context.type.name,
      permissions,
      inheritedDisallowed
    }
    const init = yield* guarded(
      child,
      connection.request("initialize", (a) =>
        a.request(sdk.methods.agent.initialize, {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "dsh", version: Version.VERSION }
        }))
    ).pipe(Effect.timeoutOption(options.initializeTimeout))
    if (Option.isNone(init)) {
      return yield* new AcpChildError({
        reason: "InitializeTimeout",
        message: `the ACP agent did not answer initialize within ${Duration.format(Duration.fromInputUnsafe(options.initializeTimeout))}`
      })
    }
    const caps = init.value.agentCapabilities
    const abilities: AgentAbilities = {
      loadSession: caps?.loadSession === true,
      mcpHttp: caps?.mcpCapabilities?.http === true,
      mcpSse: caps?.mcpCapabilities?.sse === true
    }
    return { connection: { ...child, abilities }, agentInfo: init.value.agentInfo ?? undefined }
  })

/** Where the tree's permission settings go in `session/new` (`dsh acp` narrows by them). */
const PERMISSIONS_META = "dsh/permissions"

/** A dsh child narrows its own rules by the tree's; other agents ignore the key. */
const permissionsMeta = (child: AcpChild) => {
  const settings = InheritedDisallow.settingsForChildProcess(child.permissions, child.inheritedDisallowed)
  return settings === undefined ? {} : { _meta: { [PERMISSIONS_META]: settings } }
}

/** The MCP servers this agent can take: HTTP and SSE servers only when it said it supports them. */
const serversFor = (child: AcpChild): Effect.Effect<Array<acp.McpServer>> =>
  Effect.gen(function*() {
    const kept: Array<acp.McpServer> = []
    for (const server of child.mcpServers) {
      const type = "type" in server ? server.type : "stdio"
      if ((type === "http" && !child.abilities.mcpHttp) || (type === "sse" && !child.abilities.mcpSse) || type === "acp") {
        yield* Effect.logWarning(`the ACP agent does not support ${type} MCP servers: "${server.name}" was not passed to it`)
        continue
      }
      kept.push(server)
    }
    return kept
  })

/** `session/new` in the launch's working directory, with the configured MCP servers; its id. */
export const openSession = (child: AcpChild): Effect.Effect<string, AcpChildError> =>
  Effect.gen(function*() {
    const mcpServers = yield* serversFor(child)
    const session = yield* guarded(
      child,
      child.connection.request("session/new", (a) => a.request(child.sdk.methods.agent.session.new, { cwd: child.launched.plan.cwd, mcpServers, ...permissionsMeta(child) }))
    )
    yield* Ref.set(child.opened, true)
    return session.sessionId
  })

/**
 * `session/load` of a saved session on a fresh process (cold continuation). The history the
 * agent replays is already in the child's transcript: it is dropped, except the running cost
 * it reports, which is where the next turn's cost is measured from.
 */
export const reopenSession = (child: AcpChild, saved: AcpContinuation): Effect.Effect<string, AcpChildError> =>
  Effect.gen(function*() {
    if (!child.abilities.loadSession) {
      return yield* new AcpChildError({ reason: "Unsupported", message: "the ACP agent does not advertise loadSession: its session cannot be continued" })
    }
    const mcpServers = yield* serversFor(child)
    yield* guarded(
      child,
      child.connection.request("session/load", (a) =>
        a.request(child.sdk.methods.agent.session.load, { sessionId: saved.sessionId, cwd: child.launched.plan.cwd, mcpServers, ...permissionsMeta(child) }))
    )
    yield* Ref.set(child.opened, true)
    // Every replayed update came in before the answer, so the queue holds all of them now.
    for (const item of yield* Queue.clear(child.tap)) {
      if (item._tag === "update" && item.notification.update.sessionUpdate === "usage_update") child.turn.usage.baseline(item.notification.update)
    }
    return saved.sessionId
  })

/** What a stop reason means for the parent: the runtime decides the status, never the text. */
const reportOf = (stop: acp.StopReason, base: Omit<OutOfProcessBackend.TurnReport, "status">, weCancelled: boolean): OutOfProcessBackend.TurnReport => {
  const failed = (notes: string): OutOfProcessBackend.TurnReport => ({ ...base, status: "failed", notes })
  switch (stop) {
    case "end_turn":
      return { ...base, status: "completed" }
    case "max_tokens":
      return { ...base, status: "completed", notes: "the agent stopped at its output token limit (max_tokens); the result may be cut short" }
    case "max_turn_requests":
      return failed("the agent reached its limit of model requests for one turn (max_turn_requests)")
    case "refusal":
      return failed("the agent refused the task (refusal)")
    case "cancelled":
      return weCancelled ? { ...base, status: "cancelled" } : failed("the agent cancelled its own turn")
  }
}

/** Applies the tap in order until the turn's barrier: updates of this session become dsh events. */
const consume = (child: AcpChild, turn: OutOfProcessBackend.Turn): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const item = yield* Queue.take(child.tap)
      switch (item._tag) {
        case "barrier":
          return
        case "event":
          yield* turn.emit(item.event)
          break
        case "asked": {
          const asked = child.turn.asked(item.request.toolCall)
          for (const event of asked.events) yield* turn.emit(event)
          yield* Deferred.succeed(yield* askedFor(child.asked, item.request.toolCall.toolCallId), { name: asked.name, input: asked.input, title: asked.title, kind: asked.kind, locations: asked.locations })
          break
        }
        case "update":
          if (item.notification.sessionId !== turn.sessionId) break
          for (const event of child.turn.update(item.notification.update)) yield* turn.emit(event)
      }
    }
  })

/**
 * `session/prompt` with the text. The agent's updates are applied by one consumer in wire
 * order; however the turn ends, that consumer drains up to the end (a barrier), the turn's
 * open records are closed (the last stretch of text, tool calls that never finished), and its
 * usage is recorded from the most complete source (see `makeUsageMeter`) — also for a turn cut
 * off without an answer, from the updates seen so far.
 */
export const promptTurn = (child: AcpChild, turn: OutOfProcessBackend.Turn): Effect.Effect<OutOfProcessBackend.TurnReport, AcpChildError> =>
  Effect.gen(function*() {
    yield* Ref.set(child.cancelRequested, false)
    child.turn.start()
    const answered = yield* Ref.make(Option.none<acp.PromptResponse>())
    const consumer = yield* Effect.forkChild(consume(child, turn))
    const endTurn = Effect.gen(function*() {
      yield* Queue.offer(child.tap, { _tag: "barrier" })
      yield* Effect.timeoutOption(Fiber.join(consumer), "2 seconds")
      for (const event of child.turn.finish()) yield* turn.emit(event)
      const spent = child.turn.usage.settle(Option.getOrUndefined(yield* Ref.get(answered)))
      if (spent.usage.totalTokens > 0 || spent.cost !== undefined) {
        yield* turn.emit({ type: "usage", model: child.usageLabel, usage: spent.usage, ...(spent.cost === undefined ? {} : { cost: spent.cost }) })
      }
      return spent
    })
    // The trace context rides in `_meta`: a dsh child continues this trace, other agents ignore it.
    const traceparent = yield* Trace.currentTraceparent
    const response = yield* guarded(
      child,
      child.connection.request("session/prompt", (a) =>
        a.request(child.sdk.methods.agent.session.prompt, {
          sessionId: turn.sessionId,
          prompt: [{ type: "text", text: turn.text }],
          ...(traceparent === undefined ? {} : { _meta: { [Trace.TRACEPARENT_META]: traceparent } })
        }))
    ).pipe(
      Effect.tap((r) => Ref.set(answered, Option.some(r))),
      Effect.onError(() => Effect.asVoid(endTurn))
    )
    const spent = yield* endTurn
    return reportOf(
      response.stopReason,
      { output: child.turn.result(), usage: spent.usage, ...(spent.cost === undefined ? {} : { cost: spent.cost }) },
      yield* Ref.get(child.cancelRequested)
    )
  })

/** `session/cancel` (a notification: the turn's `cancelled` answer is the confirmation). */
export const cancelTurn = (child: AcpChild, sessionId: string): Effect.Effect<void> =>
  Ref.set(child.cancelRequested, true).pipe(
    Effect.andThen(Effect.tryPromise(() => child.connection.agent.notify(child.sdk.methods.agent.session.cancel, { sessionId }))),
    Effect.ignore
  )

/** What a continuable ACP child saves: its session, and whether its agent can load it again. */
export const continuationOf = (child: AcpChild, sessionId: string): AcpContinuation => ({ sessionId, loadSession: child.abilities.loadSession })
