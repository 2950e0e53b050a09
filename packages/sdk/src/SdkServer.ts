import { AgentHost, type AgentHostShape, type HostError } from "@dsh/agent"
import { addUsage, type AgentEvent, emptyUsage, flushTelemetry, type Usage, withTraceparent } from "@dsh/core"
import type { Readable, Writable } from "node:stream"
import { Asker, type AskerShape, nobodyAsker } from "@dsh/tools"
import { Cause, Effect, Exit, Fiber, Schema } from "effect"
import { DEFAULT_MAX_FRAME_BYTES } from "./Framing.ts"
import { makeClientQuestions } from "./internal/ClientQuestions.ts"
import { makeTransport, type Transport } from "./internal/Transport.ts"
import {
  isMethodName,
  type MethodName,
  Methods,
  Notifications,
  type ParamsOf,
  type PromptResult,
  type ResultOf
} from "./Methods.ts"
import { decodeEnvelope, DSH_SDK_VERSION, ErrorCode, PROTOCOL_VERSION, type RequestId, salvageId } from "./Protocol.ts"

export interface ServeSdkOptions {
  /** What the client writes (the server's stdin). */
  readonly input: Readable
  /** Where frames go (the server's stdout); nothing else may write to it. */
  readonly output: Writable
  readonly serverInfo?: { readonly name: string; readonly version: string } | undefined
  readonly maxFrameBytes?: number | undefined
  /** Defaults for `session.create` fields the client leaves out. */
  readonly defaults?: { readonly cwd?: string | undefined; readonly model?: string | undefined; readonly agent?: string | undefined } | undefined
  /** End `output` when serving stops (default true; pass false for process.stdout). */
  readonly endOutput?: boolean | undefined
}

/** A JSON-RPC error to answer with. */
class Reply extends Schema.TaggedError<Reply>()("Reply", {
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {}

const reply = (code: number, message: string, data?: unknown): Reply =>
  new Reply(data === undefined ? { code, message } : { code, message, data })

const hostReply = (e: HostError): Reply =>
  reply(
    e.reason === "NotFound" ? ErrorCode.NotFound
      : e.reason === "InvalidInput" ? ErrorCode.InvalidParams
      : e.reason === "Unsupported" ? ErrorCode.Unsupported
      : e.reason === "Busy" ? ErrorCode.Busy
      : ErrorCode.Internal,
    e.message
  )

/** Params decoders, built once (the request path is hot). */
const paramDecoders: Readonly<Record<string, (input: unknown) => { readonly _tag: "Success"; readonly success: unknown } | { readonly _tag: "Failure"; readonly failure: { readonly message: string } }>> =
  Object.fromEntries(Object.entries(Methods).map(([method, { params }]) => [method, Schema.decodeUnknownResult(params as Schema.Codec<unknown>)]))
const decodeCancelRequest = Schema.decodeUnknownResult(Notifications["$/cancelRequest"])

const fromHost = <A>(effect: Effect.Effect<A, HostError>): Effect.Effect<A, Reply> => Effect.mapError(effect, hostReply)

/** Why an in-flight request was interrupted: it decides what (if anything) is answered. */
type StopReason = "request" | "shutdown"

interface InFlight {
  fiber: Fiber.Fiber<void> | undefined
  stop: StopReason | undefined
  /** Runs a turn (`session.prompt`, `children.send`): cancelled at shutdown, not awaited. */
  readonly turn: boolean
}

interface RunningPrompt {
  /** The turn's fiber; set right after the session is claimed. */
  inner: Fiber.Fiber<unknown, unknown> | undefined
  cancelled: boolean
}

/**
 * Serves the dsh SDK protocol for the `AgentHost` of the context over a stream pair until the input ends. Requests run
 * concurrently, each in its own fiber. When the input ends, running turns are cancelled (with
 * their descendants) and quick requests may still answer; interrupting this effect interrupts
 * everything. Protocol faults are answered with JSON-RPC errors and never end the server.
 */
export const serveSdk = (options: ServeSdkOptions): Effect.Effect<void, never, AgentHost> =>
  Effect.scoped(Effect.gen(function*() {
    const host: AgentHostShape = yield* AgentHost
    const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES
    const transport = yield* makeTransport({ input: options.input, output: options.output, maxFrameBytes, endOutput: options.endOutput })
    const scope = yield* Effect.scope
    const inFlight = new Map<RequestId, InFlight>()
    const prompts = new Map<string, RunningPrompt>()
    let initialized = false
    // Whether the client answers `permission.ask` (it said so in `initialize`).
    let clientAnswersPermissions = false

    const send = (message: unknown) => transport.send(message).pipe(Effect.ignore({ log: "Debug" }))
    const respond = (id: RequestId, result: unknown) =>
      transport.send({ jsonrpc: "2.0", id, result }).pipe(
        // A result too large for a frame is still answered: with an error the client can read.
        Effect.catchIf((e) => e.reason === "FrameTooLarge", (e) => fail(id, reply(ErrorCode.Internal, `the result is too large to send: ${e.message}`))),
        Effect.ignore({ log: "Debug" })
      )
    const fail = (id: RequestId | null, r: Reply) =>
      send({ jsonrpc: "2.0", id, error: { code: r.code, message: r.message, ...(r.data === undefined ? {} : { data: r.data }) } })

    /** Streams one event; an event too large for a frame becomes a notice instead of vanishing. */
    const notify = (sessionId: string, handle: string | undefined, event: AgentEvent): Effect.Effect<void> => {
      const params = handle === undefined ? { sessionId, event } : { sessionId, handle, event }
      return transport.send({ jsonrpc: "2.0", method: "session.event", params }).pipe(
        Effect.catchIf((e) => e.reason === "FrameTooLarge", () =>
          send({
            jsonrpc: "2.0",
            method: "session.event",
            params: { ...params, event: { type: "notice", level: "warning", message: `a ${event.type} event was too large to stream and was dropped` } }
          })),
        Effect.ignore({ log: "Debug" })
      )
    }

    const questions = makeClientQuestions({ send: transport.send, notify: send })
    const askerFor = (sessionId: string): AskerShape =>
      clientAnswersPermissions ? questions.askerFor(sessionId) : nobodyAsker({ why: "the SDK client does not answer permission requests (capabilities.permissions)" })

    const capabilities = {
      methods: Object.keys(Methods),
      children: { send: true, stop: true },
      maxFrameBytes
    }

    const prompt = (params: ParamsOf<"session.prompt">): Effect.Effect<PromptResult, Reply> =>
      Effect.gen(function*() {
        const { sessionId } = params
        if (prompts.has(sessionId)) return yield* reply(ErrorCode.Busy, `session ${sessionId} is already running a prompt; wait for it or cancel it`)
        // Claimed before anything can yield, so two prompts racing for one session cannot both run.
        const running: RunningPrompt = { inner: undefined, cancelled: false }
        prompts.set(sessionId, running)
        let usage: Usage = emptyUsage
        let descendants: Usage = emptyUsage
        let lastTurnEnd: Extract<AgentEvent, { type: "turn-end" }> | undefined
        const run = Effect.provideService(withTraceparent(params.traceparent)(host.prompt({
          sessionId,
          prompt: params.prompt,
          promptParts: params.promptParts,
          maxSteps: params.maxSteps,
          onEvent: (event) => {
            if (event.type === "usage") usage = addUsage(usage, event.usage)
            if (event.type === "turn-end") lastTurnEnd = event
            return notify(sessionId, undefined, event)
          },
          onChildEvent: (handle, event) => {
            if (event.type === "usage") descendants = addUsage(descendants, event.usage)
            return notify(sessionId, handle, event)
          }
        })), Asker, askerFor(sessionId))
        // The turn runs in its own fiber so `session.cancel` can interrupt it and still answer.
        const inner = yield* Effect.forkChild(run)
        running.inner = inner
        if (running.cancelled) yield* Fiber.interrupt(inner) // cancelled while it was being started
        const exit = yield* Fiber.await(inner).pipe(
          // Interrupted from outside ($/cancelRequest, shutdown): wait until the turn has really stopped.
          Effect.onInterrupt(() => Fiber.interrupt(inner)),
          // This turn's spans go out before the client hears the answer (and may close this process).
          Effect.ensuring(flushTelemetry),
          Effect.ensuring(Effect.sync(() => prompts.delete(sessionId)))
        )
        if (Exit.isSuccess(exit)) {
          const r = exit.value
          return {
            sessionId,
            status: r.status,
            result: r.result,
            usage: r.usage,
            totalUsage: addUsage(r.usage, descendants),
            ...(r.cost === undefined ? {} : { cost: r.cost }),
            subagents: r.subagents,
            ...(r.error === undefined ? {} : { error: r.error })
          }
        }
        if (running.cancelled && Cause.hasInterruptsOnly(exit.cause)) {
          const subagents = yield* host.listChildren(sessionId).pipe(Effect.orElseSucceed(() => []))
          const own = lastTurnEnd?.usage ?? usage
          return {
            sessionId,
            status: "cancelled" as const,
            result: lastTurnEnd?.result ?? "",
            usage: own,
            totalUsage: addUsage(own, descendants),
            subagents,
            error: "cancelled by the client (session.cancel)"
          }
        }
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
        const error = Cause.findErrorOption(exit.cause)
        return yield* (error._tag === "Some"
          ? hostReply(error.value)
          : reply(ErrorCode.Internal, `the prompt crashed: ${Cause.pretty(exit.cause).split("\n")[0]}`))
      })

    const cancel = (sessionId: string) =>
      Effect.suspend(() => {
        const running = prompts.get(sessionId)
        if (running === undefined) return Effect.succeed({ cancelled: false })
        running.cancelled = true
        return running.inner === undefined ? Effect.succeed({ cancelled: true }) : Fiber.interrupt(running.inner).pipe(Effect.as({ cancelled: true }))
      })


    const handlers: { readonly [M in Exclude<MethodName, "initialize">]: (params: ParamsOf<M>) => Effect.Effect<ResultOf<M>, Reply> } = {
      ping: () => Effect.succeed({}),
      "session.create": (p) =>
        fromHost(host.createSession({
          cwd: p.cwd ?? options.defaults?.cwd ?? process.cwd(),
          agent: p.agent ?? options.defaults?.agent,
          model: p.model ?? options.defaults?.model,
          // Kept in the session's state: its rules stay narrowed by the caller's across restarts.
          ...(p.permissions === undefined ? {} : { extra: { parentPermissions: p.permissions } })
        })).pipe(Effect.map((session) => ({ session }))),
      "session.load": (p) =>
        fromHost(host.loadSession(p.sessionId)).pipe(Effect.map(({ records, ...session }) => ({
          session,
          turns: records.filter((r) => r.type === "turn-end").length,
          ...(p.includeRecords === true ? { records } : {})
        }))),
      "session.list": () => fromHost(host.listSessions).pipe(Effect.map((sessions) => ({ sessions }))),
      "session.prompt": prompt,
      "session.cancel": (p) => cancel(p.sessionId),
      "children.list": (p) => fromHost(host.listChildren(p.sessionId)).pipe(Effect.map((children) => ({ children }))),
      "children.send": (p) =>
        fromHost(host.sendToChild({
          sessionId: p.sessionId,
          handle: p.handle,
          message: p.message,
          onChildEvent: (handle, event) => notify(p.sessionId, handle, event)
        })).pipe(Effect.provideService(Asker, askerFor(p.sessionId))),
      "children.stop": (p) => fromHost(host.stopChild({ sessionId: p.sessionId, handle: p.handle })).pipe(Effect.map((stopped) => ({ stopped })))
    }

    const decodeParams = <M extends MethodName>(method: M, params: unknown): Effect.Effect<ParamsOf<M>, Reply> => {
      const decoded = paramDecoders[method]!(params ?? {})
      return decoded._tag === "Success"
        ? Effect.succeed(decoded.success as ParamsOf<M>)
        : Effect.fail(reply(ErrorCode.InvalidParams, `invalid params for ${method}: ${decoded.failure.message}`))
    }

    const initialize = (id: RequestId, params: unknown) =>
      Effect.gen(function*() {
        const p = yield* decodeParams("initialize", params)
        if (p.protocolVersion !== PROTOCOL_VERSION) {
          return yield* reply(ErrorCode.Unsupported, `protocol version ${p.protocolVersion} is not supported; this server speaks ${PROTOCOL_VERSION}`, {
            supported: [PROTOCOL_VERSION]
          })
        }
        initialized = true
        clientAnswersPermissions = p.capabilities?.permissions === true
        return {
          protocolVersion: PROTOCOL_VERSION,
          serverInfo: options.serverInfo ?? { name: "dsh", version: DSH_SDK_VERSION },
          capabilities
        } satisfies ResultOf<"initialize">
      }).pipe(Effect.matchEffect({ onFailure: (r) => fail(id, r), onSuccess: (r) => respond(id, r) }))

    const request = (id: RequestId, method: string, params: unknown): Effect.Effect<void> => {
      if (method === "initialize") return initialize(id, params)
      if (!isMethodName(method)) return fail(id, reply(ErrorCode.MethodNotFound, `unknown method "${method}"`))
      if (!initialized) return fail(id, reply(ErrorCode.NotInitialized, `call initialize before ${method}`))
      if (inFlight.has(id)) return fail(id, reply(ErrorCode.InvalidRequest, `request id ${JSON.stringify(id)} is already in use`))
      const handler = handlers[method as Exclude<MethodName, "initialize">] as (p: unknown) => Effect.Effect<unknown, Reply>
      const entry: InFlight = { fiber: undefined, stop: undefined, turn: method === "session.prompt" || method === "children.send" }
      inFlight.set(id, entry)
      const work = decodeParams(method, params).pipe(
        Effect.flatMap(handler),
        Effect.matchEffect({ onFailure: (r) => fail(id, r), onSuccess: (r) => respond(id, r) }),
        Effect.onInterrupt(() => (entry.stop === "request" ? fail(id, reply(ErrorCode.Cancelled, `${method} was cancelled`)) : Effect.void)),
        Effect.ensuring(Effect.sync(() => inFlight.delete(id)))
      )
      // Not started until this fiber yields, so the entry is complete before the work can end.
      return Effect.forkIn(work, scope).pipe(Effect.map((fiber) => void (entry.fiber = fiber)))
    }

    const notification = (method: string, params: unknown): Effect.Effect<void> => {
      if (method !== "$/cancelRequest") return Effect.void // unknown notifications are ignored, as JSON-RPC asks
      const decoded = decodeCancelRequest(params)
      if (decoded._tag === "Failure") return Effect.void
      const entry = inFlight.get(decoded.success.id)
      if (entry?.fiber === undefined) return Effect.void
      entry.stop = "request"
      return Fiber.interrupt(entry.fiber).pipe(Effect.forkIn(scope), Effect.asVoid)
    }

    const handleFrame = (text: string): Effect.Effect<void> => {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (error) {
        return fail(null, reply(ErrorCode.ParseError, `not JSON: ${error instanceof Error ? error.message : String(error)}`))
      }
      const envelope = decodeEnvelope(json)
      if (envelope === undefined) {
        return fail(salvageId(json), reply(ErrorCode.InvalidRequest, "not a JSON-RPC 2.0 request or notification"))
      }
      switch (envelope._tag) {
        case "Request":
          return request(envelope.message.id, envelope.message.method, envelope.message.params)
        case "Notification":
          return notification(envelope.message.method, envelope.message.params)
        case "Result":
          return questions.answered(envelope.message.id, { result: envelope.message.result })
        case "Error":
          return questions.answered(envelope.message.id, { error: envelope.message.error.message })
      }
    }

    yield* serveLoop(transport, handleFrame, (bytes) =>
      fail(null, reply(ErrorCode.FrameTooLarge, `a ${bytes}-byte frame exceeds the limit of ${maxFrameBytes} bytes and was dropped`)))
    // Input closed: the client is gone or done. Running turns are cancelled (with their
    // descendants); quick requests still in flight may finish and answer. Both are awaited.
    // (When this effect is interrupted instead, closing the scope interrupts all of them.)
    questions.abandon("the client closed the connection")
    const running = [...inFlight.values()]
    for (const entry of running) if (entry.turn) entry.stop = "shutdown"
    const fibers = (turn: boolean) => running.flatMap((e) => (e.turn === turn && e.fiber !== undefined ? [e.fiber] : []))
    yield* Fiber.interruptAll(fibers(true))
    yield* Fiber.awaitAll(fibers(false))
  }))

const serveLoop = (
  transport: Transport,
  onFrame: (text: string) => Effect.Effect<void>,
  onOversized: (bytes: number) => Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const item = yield* transport.next
      if (item._tag === "End") return
      if (item._tag === "Oversized") yield* onOversized(item.bytes)
      else yield* onFrame(item.text)
    }
  })
