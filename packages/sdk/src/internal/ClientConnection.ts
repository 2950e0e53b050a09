import type { Readable, Writable } from "node:stream"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Scope } from "effect"
import { DEFAULT_MAX_FRAME_BYTES } from "../Framing.ts"
import { type Listener, makeOnFrame, type Pending } from "./ClientInbound.ts"
import { makeTransport, type Transport } from "./Transport.ts"
import {
  type ChildReply,
  type ChildSummary,
  type InitializeResult,
  type MethodName,
  type ParamsOf,
  type PermissionAskParams,
  type PermissionAskResult,
  type PromptResult,
  type ResultOf,
  type SessionEvent,
  type SessionInfo,
  type SessionLoadResult,
  type SessionPromptParams
} from "../Methods.ts"
import { DSH_SDK_VERSION, PROTOCOL_VERSION } from "../Protocol.ts"
import { type SdkError, sdkError } from "../SdkError.ts"

export interface ConnectOptions {
  /** What the server writes (its stdout). */
  readonly input: Readable
  /** Where requests go (its stdin). Ended when the connection closes. */
  readonly output: Writable
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /** How long the server may take to answer `initialize`. Default 10 seconds. */
  readonly handshakeTimeout?: Duration.Input | undefined
  readonly maxFrameBytes?: number | undefined
  /** Every `session.event`, whichever call it belongs to. Runs in order; must not fail. */
  readonly onEvent?: ((event: SessionEvent) => Effect.Effect<void>) | undefined
  /** A notification that does not match its schema (it is skipped; the connection stays up). */
  readonly onViolation?: ((error: SdkError) => Effect.Effect<void>) | undefined
  /**
   * Answers the server's `permission.ask`: a call its rules leave to a person (`explore-1 wants
   * to run: git push`). Given, the client declares `capabilities.permissions` and the server
   * asks it; absent, the server asks no one and such calls are denied. Questions come one at a
   * time; a question the server withdraws (its turn was cancelled) is interrupted.
   */
  readonly onPermission?: ((request: PermissionAskParams) => Effect.Effect<PermissionAskResult>) | undefined
}

export interface CallOptions {
  /** Fails the call with `Timeout` (and tells the server to cancel it) after this long. */
  readonly timeout?: Duration.Input | undefined
}

export interface StreamOptions {
  /** The events of this call's session, in order, before the call returns. Must not fail. */
  readonly onEvent?: ((event: SessionEvent) => Effect.Effect<void>) | undefined
  /** When the call is interrupted: how long to wait for the server to confirm the cancellation. Default 2 seconds. */
  readonly cancelGrace?: Duration.Input | undefined
}

/**
 * A connected dsh SDK client: the handshake is done, `server` says what it speaks. Calls may
 * run concurrently. Interrupting `prompt` cancels the turn on the server (`session.cancel`,
 * waiting up to `cancelGrace` for it to stop). When the connection closes, every pending call
 * fails with a typed `SdkError`.
 */
export interface SdkClient {
  readonly server: InitializeResult
  /** Any method, typed by the method table. */
  readonly request: <M extends Exclude<MethodName, "initialize">>(method: M, params: ParamsOf<M>, options?: CallOptions) => Effect.Effect<ResultOf<M>, SdkError>
  readonly ping: Effect.Effect<void, SdkError>
  readonly createSession: (params?: ParamsOf<"session.create">) => Effect.Effect<SessionInfo, SdkError>
  readonly loadSession: (sessionId: string, options?: { readonly includeRecords?: boolean | undefined }) => Effect.Effect<SessionLoadResult, SdkError>
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionInfo>, SdkError>
  readonly prompt: (params: SessionPromptParams, options?: StreamOptions) => Effect.Effect<PromptResult, SdkError>
  /** Cancels the session's running prompt; false when none was running. */
  readonly cancel: (sessionId: string) => Effect.Effect<boolean, SdkError>
  readonly listChildren: (sessionId: string) => Effect.Effect<ReadonlyArray<ChildSummary>, SdkError>
  readonly sendToChild: (params: ParamsOf<"children.send">, options?: StreamOptions) => Effect.Effect<ChildReply, SdkError>
  readonly stopChild: (params: ParamsOf<"children.stop">) => Effect.Effect<ReadonlyArray<string>, SdkError>
  /** Completes, with the reason, once the connection has closed. */
  readonly closed: Effect.Effect<SdkError>
  /** Closes the connection (the server sees EOF); pending calls fail with `ConnectionClosed`. */
  readonly close: Effect.Effect<void>
}

/** A duration for messages ("10s"), without throwing on odd input. */
export const showDuration = (input: Duration.Input): string => {
  const d = Duration.fromInput(input)
  return d._tag === "Some" ? Duration.format(d.value) : String(input)
}

/** Internal: a client over any transport; `describeEnd` words why the input ended (spawn adds exit status and stderr). */
export const connectTransport = (
  transport: Transport,
  options: Omit<ConnectOptions, "input" | "output">,
  describeEnd: (detail: string) => Effect.Effect<string>
): Effect.Effect<SdkClient, SdkError, Scope.Scope> =>
  Effect.gen(function*() {
    // Calls that outlive their caller's interruption run here. It is created before the shutdown
    // finalizer below, so closing the connection fails pending calls first (ConnectionClosed), then ends them.
    const scope = yield* Scope.fork(yield* Effect.scope)
    const pending = new Map<number, Pending>()
    const listeners = new Set<Listener>()
    // The server's questions being answered, by request id (a `$/cancelRequest` interrupts one).
    const answering = new Map<string | number, Fiber.Fiber<void>>()
    const closedWith = Deferred.makeUnsafe<SdkError>()
    let closedError: SdkError | undefined
    let nextId = 1

    const shutdown = (error: SdkError) =>
      Effect.suspend(() => {
        if (closedError !== undefined) return Effect.void
        closedError = error
        Deferred.doneUnsafe(closedWith, Effect.succeed(error))
        for (const p of pending.values()) Deferred.doneUnsafe(p.deferred, Effect.fail(error))
        pending.clear()
        return transport.close
      })
    yield* Effect.addFinalizer(() => shutdown(sdkError("ConnectionClosed", "the connection was closed by the client")))

    const onFrame = makeOnFrame({
      transport, scope, pending, listeners, answering, shutdown,
      onEvent: options.onEvent, onViolation: options.onViolation, onPermission: options.onPermission
    })

    const reader = Effect.gen(function*() {
      while (true) {
        const item = yield* transport.next
        if (item._tag === "End") return yield* shutdown(sdkError("ConnectionClosed", yield* describeEnd(item.detail)))
        if (item._tag === "Oversized") {
          return yield* shutdown(sdkError("FrameTooLarge", `the server sent a frame of more than ${item.bytes} bytes (limit ${options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES})`))
        }
        yield* onFrame(item.text)
        if (closedError !== undefined) return
      }
    })
    yield* Effect.forkIn(reader, scope)

    const call = (method: MethodName, params: unknown, callOptions?: CallOptions): Effect.Effect<unknown, SdkError> =>
      Effect.suspend(() => {
        if (closedError !== undefined) return Effect.fail(closedError)
        const id = nextId++
        const deferred = Deferred.makeUnsafe<unknown, SdkError>()
        pending.set(id, { method, deferred })
        const cancelRemote = Effect.suspend(() =>
          pending.delete(id) && closedError === undefined
            ? transport.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }).pipe(Effect.ignore({ log: "Debug" }))
            : Effect.void
        )
        const answer = transport.send({ jsonrpc: "2.0", id, method, params }).pipe(Effect.andThen(Deferred.await(deferred)))
        const timed = callOptions?.timeout === undefined ? answer : answer.pipe(
          Effect.timeoutOption(callOptions.timeout),
          Effect.flatMap((o) =>
            o._tag === "Some"
              ? Effect.succeed(o.value)
              : cancelRemote.pipe(Effect.andThen(Effect.fail(sdkError("Timeout", `${method}: no answer within ${showDuration(callOptions.timeout!)}`))))
          )
        )
        return timed.pipe(Effect.onInterrupt(() => cancelRemote), Effect.ensuring(Effect.sync(() => pending.delete(id))))
      })

    const request = <M extends Exclude<MethodName, "initialize">>(method: M, params: ParamsOf<M>, callOptions?: CallOptions) =>
      call(method, params, callOptions) as Effect.Effect<ResultOf<M>, SdkError>

    /**
     * A call that streams its session's events. The call runs in the connection's scope, so an
     * interruption of the caller does not abandon it: the server is asked to cancel, and its
     * final answer (with the events before it) still arrives within the grace.
     */
    const streaming = <M extends "session.prompt" | "children.send">(method: M, params: ParamsOf<M>, stream: StreamOptions | undefined) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const listener: Listener | undefined = stream?.onEvent === undefined ? undefined : { sessionId: params.sessionId, onEvent: stream.onEvent }
          if (listener !== undefined) listeners.add(listener)
          const running = yield* Effect.forkIn(request(method, params), scope)
          const cancel = Effect.gen(function*() {
            if (method === "session.prompt") yield* request("session.cancel", { sessionId: params.sessionId }).pipe(Effect.ignore({ log: "Debug" }))
            yield* Fiber.await(running)
          }).pipe(Effect.timeoutOption(stream?.cancelGrace ?? "2 seconds"), Effect.andThen(Fiber.interrupt(running)))
          const exit = yield* restore(Fiber.await(running)).pipe(
            Effect.onInterrupt(() => cancel),
            Effect.ensuring(Effect.sync(() => listener !== undefined && listeners.delete(listener)))
          )
          // The call was cut off by the connection closing (its scope ended): say so, as a typed error.
          if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) && closedError !== undefined) return yield* Effect.fail(closedError)
          return yield* exit
        })
      )

    const initialized = yield* handshake(call, options)

    return {
      server: initialized,
      request,
      ping: Effect.asVoid(request("ping", {})),
      createSession: (params = {}) => Effect.map(request("session.create", params), (r) => r.session),
      loadSession: (sessionId, o) => request("session.load", o?.includeRecords === undefined ? { sessionId } : { sessionId, includeRecords: o.includeRecords }),
      listSessions: Effect.map(request("session.list", {}), (r) => r.sessions),
      prompt: (params, o) => streaming("session.prompt", params, o),
      cancel: (sessionId) => Effect.map(request("session.cancel", { sessionId }), (r) => r.cancelled),
      listChildren: (sessionId) => Effect.map(request("children.list", { sessionId }), (r) => r.children),
      sendToChild: (params, o) => streaming("children.send", params, o),
      stopChild: (params) => Effect.map(request("children.stop", params), (r) => r.stopped),
      closed: Deferred.await(closedWith),
      close: shutdown(sdkError("ConnectionClosed", "the connection was closed by the client"))
    } satisfies SdkClient
  })

/** `initialize`: in time, and in the protocol this client speaks. */
const handshake = (
  call: (method: "initialize", params: unknown) => Effect.Effect<unknown, SdkError>,
  options: Omit<ConnectOptions, "input" | "output">
): Effect.Effect<InitializeResult, SdkError> =>
  Effect.gen(function*() {
    const initialized = yield* call("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: options.clientInfo ?? { name: "@dsh/sdk", version: DSH_SDK_VERSION },
      ...(options.onPermission === undefined ? {} : { capabilities: { permissions: true } })
    }).pipe(
      Effect.timeoutOption(options.handshakeTimeout ?? "10 seconds"),
      Effect.flatMap((o) =>
        o._tag === "Some"
          ? Effect.succeed(o.value as InitializeResult)
          : Effect.fail(sdkError("Timeout", `no handshake: the server did not answer initialize within ${showDuration(options.handshakeTimeout ?? "10 seconds")}`))
      )
    )
    if (initialized.protocolVersion !== PROTOCOL_VERSION) {
      return yield* sdkError("ProtocolViolation", `the server speaks protocol ${initialized.protocolVersion}, this client ${PROTOCOL_VERSION}`)
    }
    return initialized
  })

/**
 * Connects to a dsh SDK server over a stream pair and performs the handshake; the client is
 * ready when this succeeds. Closing the scope closes the connection (the output is ended).
 */
export const connect = (options: ConnectOptions): Effect.Effect<SdkClient, SdkError, Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* makeTransport({ input: options.input, output: options.output, maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES })
    return yield* connectTransport(transport, options, (detail) => Effect.succeed(detail))
  })
