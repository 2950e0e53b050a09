import type * as acp from "@agentclientprotocol/sdk/unstable"
import { emptyUsage, makeUsage, type Usage, VERSION } from "@dsh/core"
import type { Connected, LaunchedChild, OutOfProcessRun, Turn, TurnReport } from "@dsh/subagent-outofprocess"
import { Permissions, type PermissionsShape } from "@dsh/tools"
import { Duration, Effect, Fiber, Option, Queue, Ref, type Scope } from "effect"
import { AcpChildError } from "../AcpChildError.ts"
import { type ChildTurn, makeChildTurn } from "./ChildTurn.ts"
import { type ChildConnection, connectChild, type TapItem } from "./Connection.ts"
import { decidePermissionRequest } from "./PermissionRequest.ts"
import { type AcpSdk, loadAcpSdk } from "./Sdk.ts"

/** One ACP agent process after `initialize`: the connection and what its turns share. */
export interface AcpChild {
  readonly sdk: AcpSdk
  readonly connection: ChildConnection
  readonly launched: LaunchedChild
  /** The child's side of its turns, rebuilt from its `session/update`s. */
  readonly turn: ChildTurn
  /** Updates and permission records in wire order, applied by each turn's consumer. */
  readonly tap: Queue.Queue<TapItem>
  /** Whether `session/new` was answered: a death before it is "before it was ready". */
  readonly opened: Ref.Ref<boolean>
  /** Whether we asked the turn in flight to stop: its `cancelled` answer is then ours. */
  readonly cancelRequested: Ref.Ref<boolean>
  /** The `model` of the usage event of each answered prompt (the agent type's name). */
  readonly usageLabel: string
  /** The tree's rules: they decide the agent's permission requests and go to `session/new` as `_meta`. */
  readonly permissions: PermissionsShape
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

/**
 * The client side of an ACP agent the driver started: the connection over its stdio (strict
 * framing, permission requests decided by the calling fiber's `Permissions`), then `initialize`
 * within `initializeTimeout` — the readiness signal.
 */
export const connectAcpChild = (options: {
  readonly launched: LaunchedChild
  readonly run: OutOfProcessRun
  readonly initializeTimeout: Duration.Input
  readonly maxMessageBytes: number
}): Effect.Effect<Connected<AcpChild>, AcpChildError, Scope.Scope> =>
  Effect.gen(function*() {
    const { launched, run } = options
    const sdk = yield* loadAcpSdk
    const permissions = yield* Permissions
    const tap = yield* Queue.unbounded<TapItem>()
    const turn = makeChildTurn()
    const connection = yield* connectChild({
      child: launched.child,
      tap,
      maxMessageBytes: options.maxMessageBytes,
      decide: yield* decidePermissionRequest({
        permissions,
        agent: run.context.handle,
        cwd: launched.plan.cwd,
        policy: { tools: run.context.type.definition.tools, disallowedTools: run.context.type.definition.disallowedTools },
        emit: (event) => Queue.offer(tap, { _tag: "event", event }).pipe(Effect.asVoid)
      })
    })
    const child: AcpChild = {
      sdk,
      connection,
      launched,
      turn,
      tap,
      opened: yield* Ref.make(false),
      cancelRequested: yield* Ref.make(false),
      usageLabel: run.context.type.name,
      permissions
    }
    const init = yield* guarded(
      child,
      connection.request("initialize", (a) =>
        a.request(sdk.methods.agent.initialize, {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "dsh", version: VERSION }
        }))
    ).pipe(Effect.timeoutOption(options.initializeTimeout))
    if (Option.isNone(init)) {
      return yield* new AcpChildError({
        reason: "InitializeTimeout",
        message: `the ACP agent did not answer initialize within ${Duration.format(Duration.fromInputUnsafe(options.initializeTimeout))}`
      })
    }
    return { connection: child, agentInfo: init.value.agentInfo ?? undefined }
  })

/** Where the tree's permission settings go in `session/new` (`dsh acp` narrows by them). */
const PERMISSIONS_META = "dsh/permissions"

/** `session/new` in the launch's working directory; its id. */
export const openSession = (child: AcpChild): Effect.Effect<string, AcpChildError> =>
  guarded(child, child.connection.request("session/new", (a) => a.request(child.sdk.methods.agent.session.new, {
    cwd: child.launched.plan.cwd,
    mcpServers: [],
    // A dsh child narrows its own rules by these; other agents ignore the key.
    ...(child.permissions.configured ? { _meta: { [PERMISSIONS_META]: child.permissions.settings } } : {})
  }))).pipe(
    Effect.tap(() => Ref.set(child.opened, true)),
    Effect.map((session) => session.sessionId)
  )

/** What a stop reason means for the parent: the runtime decides the status, never the text. */
const reportOf = (stop: acp.StopReason, output: string, usage: Usage, weCancelled: boolean): TurnReport => {
  const failed = (notes: string): TurnReport => ({ status: "failed", output, usage, notes })
  switch (stop) {
    case "end_turn":
      return { status: "completed", output, usage }
    case "max_tokens":
      return { status: "completed", output, usage, notes: "the agent stopped at its output token limit (max_tokens); the result may be cut short" }
    case "max_turn_requests":
      return failed("the agent reached its limit of model requests for one turn (max_turn_requests)")
    case "refusal":
      return failed("the agent refused the task (refusal)")
    case "cancelled":
      return weCancelled ? { status: "cancelled", output, usage } : failed("the agent cancelled its own turn")
  }
}

/** Applies the tap in order until the turn's barrier: updates of this session become dsh events. */
const consume = (child: AcpChild, turn: Turn): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const item = yield* Queue.take(child.tap)
      if (item._tag === "barrier") return
      if (item._tag === "event") yield* turn.emit(item.event)
      else if (item.notification.sessionId === turn.sessionId) {
        for (const event of child.turn.update(item.notification.update)) yield* turn.emit(event)
      }
    }
  })

/**
 * `session/prompt` with the text. The agent's updates are applied by one consumer in wire
 * order; however the turn ends, that consumer drains up to the end (a barrier) and the turn's
 * open records are closed (the last stretch of text, tool calls that never finished). An
 * answer adds the turn's `usage` event (ACP reports usage only in the answer).
 */
export const promptTurn = (child: AcpChild, turn: Turn): Effect.Effect<TurnReport, AcpChildError> =>
  Effect.gen(function*() {
    yield* Ref.set(child.cancelRequested, false)
    const consumer = yield* Effect.forkChild(consume(child, turn))
    const endTurn = Effect.gen(function*() {
      yield* Queue.offer(child.tap, { _tag: "barrier" })
      yield* Effect.timeoutOption(Fiber.join(consumer), "2 seconds")
      for (const event of child.turn.finish()) yield* turn.emit(event)
    })
    const response = yield* guarded(
      child,
      child.connection.request("session/prompt", (a) =>
        a.request(child.sdk.methods.agent.session.prompt, { sessionId: turn.sessionId, prompt: [{ type: "text", text: turn.text }] }))
    ).pipe(Effect.ensuring(endTurn))
    const reported = response.usage
    const usage = reported == null ? emptyUsage : makeUsage(reported.inputTokens, reported.outputTokens)
    if (usage.totalTokens > 0) yield* turn.emit({ type: "usage", model: child.usageLabel, usage })
    return reportOf(response.stopReason, child.turn.result(), usage, yield* Ref.get(child.cancelRequested))
  })

/** `session/cancel` (a notification: the turn's `cancelled` answer is the confirmation). */
export const cancelTurn = (child: AcpChild, sessionId: string): Effect.Effect<void> =>
  Ref.set(child.cancelRequested, true).pipe(
    Effect.andThen(Effect.tryPromise(() => child.connection.agent.notify(child.sdk.methods.agent.session.cancel, { sessionId }))),
    Effect.ignore
  )
