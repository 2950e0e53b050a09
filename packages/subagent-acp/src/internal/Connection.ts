import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events } from "@dsh/core"
import { type ProcessLauncher, WebStdio } from "@dsh/subprocess"
import { Effect, FiberSet, Queue, type Scope } from "effect"
import { AcpChildError } from "../AcpChildError.ts"
import { type ProtocolFault, strictNdJsonStream } from "./Framing.ts"
import { loadAcpSdk } from "./Sdk.ts"

/** Where a parent dsh puts the reason it denied a permission (read by `dsh acp` children). */
export const DENY_REASON_META = "dsh/reason"

/**
 * What a turn's single consumer applies, in order: the agent's `session/update`s and
 * permission requests as they came off the wire, the parent's own records (permission
 * decisions) as they happened, and the barrier that ends the turn (everything before it has
 * been applied once it is taken).
 */
export type TapItem =
  | { readonly _tag: "update"; readonly notification: acp.SessionNotification }
  | { readonly _tag: "asked"; readonly request: acp.RequestPermissionRequest }
  | { readonly _tag: "event"; readonly event: Events.AgentEvent }
  | { readonly _tag: "barrier" }

export interface ChildConnection {
  readonly agent: acp.ClientContext
  /** The first framing fault, if the agent broke the protocol. */
  readonly fault: () => ProtocolFault | undefined
  /** Whether the connection is closed (the agent's stdout ended, or a fault). */
  readonly closed: () => boolean
  /** A request as an Effect: failures (error answers, a closed connection) are typed. */
  readonly request: <A>(label: string, send: (agent: acp.ClientContext) => Promise<A>) => Effect.Effect<A, AcpChildError>
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The ACP client side of one child, over its stdio, for as long as the scope lives (closing
 * it closes the connection, which rejects every pending request). `session/update`s are
 * tapped from the framing layer in wire order, before the SDK sees the prompt's response, so
 * no update can be overtaken by the end of the turn. Permission requests go to `decide`.
 */
export const connectChild = (options: {
  readonly child: ProcessLauncher.ChildProcessHandle
  /** Receives every `session/update` in wire order. */
  readonly tap: Queue.Queue<TapItem>
  readonly maxMessageBytes: number
  readonly decide: (request: acp.RequestPermissionRequest) => Effect.Effect<acp.RequestPermissionResponse>
}): Effect.Effect<ChildConnection, AcpChildError, Scope.Scope> =>
  Effect.gen(function*() {
    const { child } = options
    const sdk = yield* loadAcpSdk
    let fault: ProtocolFault | undefined
    const stream = strictNdJsonStream(yield* WebStdio.childWebStdio(child), {
      maxMessageBytes: options.maxMessageBytes,
      onFault: (f) => (fault ??= f),
      onMessage: (message) => {
        if (!("method" in message)) return
        if (!("id" in message) && message.method === sdk.methods.client.session.update) {
          Queue.offerUnsafe(options.tap, { _tag: "update", notification: message.params as acp.SessionNotification })
        } else if ("id" in message && message.method === sdk.methods.client.session.requestPermission) {
          // In wire order with the updates: the call it is about may have been announced just before.
          Queue.offerUnsafe(options.tap, { _tag: "asked", request: message.params as acp.RequestPermissionRequest })
        }
      }
    })
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const app = sdk.client({ name: "dsh" })
      .onRequest(sdk.methods.client.session.requestPermission, ({ params }) => run(options.decide(params)))
      // Updates are handled by the tap above; this only keeps them from counting as unhandled.
      .onNotification(sdk.methods.client.session.update, () => undefined)
    const connection = yield* Effect.acquireRelease(
      Effect.sync(() => app.connect(stream)),
      (c) => Effect.sync(() => c.close())
    )
    return {
      agent: connection.agent,
      fault: () => fault,
      closed: () => connection.signal.aborted,
      request: (label, send) =>
        Effect.tryPromise({
          try: () => send(connection.agent),
          catch: (e) => new AcpChildError({ reason: "RequestFailed", message: `${label} failed: ${messageOf(e)}` })
        })
    } satisfies ChildConnection
  })

/** The tool call a permission request is about, with everything the child said about it so far. */
export interface AskedCall {
  readonly name: string
  readonly input: unknown
  readonly title: string | undefined
  /** The ACP `kind` the child gave it (`execute`, `edit`, …). */
  readonly kind: string | undefined
  /** The paths it touches, as the child listed them. */
  readonly locations: ReadonlyArray<string>
}
