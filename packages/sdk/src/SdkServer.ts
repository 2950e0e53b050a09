import { AgentHost } from "@dsh/agent"
import type { Readable, Writable } from "node:stream"
import { Asker } from "@dsh/tools"
import { Effect, Fiber, Schema } from "effect"
import { DEFAULT_MAX_FRAME_BYTES } from "./Framing.ts"
import { makeClientQuestions } from "./internal/ClientQuestions.ts"
import { makeHandlers } from "./internal/ServerHandlers.ts"
import { makeOutbound } from "./internal/ServerOutbound.ts"
import { decodeParams, type Reply, reply } from "./internal/ServerReply.ts"
import { makeTransport, type Transport } from "./internal/Transport.ts"
import { isMethodName, type MethodName, Methods, Notifications, type ResultOf } from "./Methods.ts"
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

const decodeCancelRequest = Schema.decodeUnknownResult(Notifications["$/cancelRequest"])

/** Why an in-flight request was interrupted: it decides what (if anything) is answered. */
type StopReason = "request" | "shutdown"

interface InFlight {
  fiber: Fiber.Fiber<void> | undefined
  stop: StopReason | undefined
  /** Runs a turn (`session.prompt`, `children.send`): cancelled at shutdown, not awaited. */
  readonly turn: boolean
}

/**
 * Serves the dsh SDK protocol for the `AgentHost` of the context over a stream pair until the input ends. Requests run
 * concurrently, each in its own fiber. When the input ends, running turns are cancelled (with
 * their descendants) and quick requests may still answer; interrupting this effect interrupts
 * everything. Protocol faults are answered with JSON-RPC errors and never end the server.
 */
export const serveSdk = (options: ServeSdkOptions): Effect.Effect<void, never, AgentHost.AgentHost> =>
  Effect.scoped(Effect.gen(function*() {
    const host: AgentHost.AgentHostShape = yield* AgentHost.AgentHost
    const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES
    const transport = yield* makeTransport({ input: options.input, output: options.output, maxFrameBytes, endOutput: options.endOutput })
    const scope = yield* Effect.scope
    const inFlight = new Map<RequestId, InFlight>()
    let initialized = false
    // Whether the client answers `permission.ask` (it said so in `initialize`).
    let clientAnswersPermissions = false

    const { send, respond, fail, notify } = makeOutbound(transport)

    const questions = makeClientQuestions({ send: transport.send, notify: send })
    const askerFor = (sessionId: string): Asker.AskerShape =>
      clientAnswersPermissions ? questions.askerFor(sessionId) : Asker.nobodyAsker({ why: "the SDK client does not answer permission requests (capabilities.permissions)" })

    const capabilities = {
      methods: Object.keys(Methods),
      children: { send: true, stop: true },
      maxFrameBytes
    }

    const handlers = makeHandlers({ host, notify, askerFor, defaults: options.defaults })

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
