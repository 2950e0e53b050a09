import { LocalProcessLauncher } from "@dsh/subprocess"
import { Cause, Effect, Exit, Scope } from "effect"
import type {
  ChildReply,
  ChildSummary,
  InitializeResult,
  ParamsOf,
  PermissionAskParams,
  PermissionAskResult,
  PromptResult,
  SessionEvent,
  SessionInfo,
  SessionLoadResult,
  SessionPromptParams
} from "./Methods.ts"
import { connect, type ConnectOptions, type SdkClient } from "./internal/ClientConnection.ts"
import type { SdkError } from "./SdkError.ts"
import { spawn, type SpawnSdkOptions } from "./internal/ClientSpawn.ts"

type PlainEvents = { readonly onEvent?: ((event: SessionEvent) => void) | undefined }

/** `onPermission` as a Promise: answers the server's `permission.ask` (see `ConnectOptions.onPermission`). */
type PlainPermissions = { readonly onPermission?: ((request: PermissionAskParams) => Promise<PermissionAskResult>) | undefined }

/** Connect to a stream pair, or spawn a server (`command`) on the local launcher. */
export type CreateSdkClientOptions =
  | (Omit<ConnectOptions, "onEvent" | "onViolation" | "onPermission"> & PlainEvents & PlainPermissions)
  | (Omit<SpawnSdkOptions, "onEvent" | "onViolation" | "onPermission"> & PlainEvents & PlainPermissions)

export interface PromiseStreamOptions extends PlainEvents {
  /** Aborting cancels the call (for a prompt: `session.cancel`) and rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
}

/**
 * The SDK for code outside Effect: the same calls as `SdkClient`, as Promises. Rejections are
 * `SdkError`s (`reason`: ConnectionClosed, ProtocolViolation, FrameTooLarge, Timeout, Remote).
 */
export interface PromiseSdkClient {
  readonly server: InitializeResult
  /** The spawned server's pid (spawned clients only), for diagnostics. */
  readonly pid: number | undefined
  ping(): Promise<void>
  createSession(params?: ParamsOf<"session.create">): Promise<SessionInfo>
  loadSession(sessionId: string, options?: { readonly includeRecords?: boolean | undefined }): Promise<SessionLoadResult>
  listSessions(): Promise<ReadonlyArray<SessionInfo>>
  prompt(params: SessionPromptParams, options?: PromiseStreamOptions): Promise<PromptResult>
  cancel(sessionId: string): Promise<boolean>
  listChildren(sessionId: string): Promise<ReadonlyArray<ChildSummary>>
  sendToChild(params: ParamsOf<"children.send">, options?: PromiseStreamOptions): Promise<ChildReply>
  stopChild(params: ParamsOf<"children.stop">): Promise<ReadonlyArray<string>>
  /** Resolves, with the reason, once the connection has closed. */
  readonly closed: Promise<SdkError>
  /** Closes the connection; a spawned server is stopped (EOF, grace, then the signal ladder). */
  close(): Promise<void>
}

const effectful = (onEvent: ((event: SessionEvent) => void) | undefined) =>
  onEvent === undefined ? undefined : (event: SessionEvent) => Effect.sync(() => onEvent(event))

/** Runs an effect as a Promise: failures reject with the error itself, an abort with the signal's reason. */
const run = async <A>(effect: Effect.Effect<A, unknown>, signal?: AbortSignal): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect, signal === undefined ? undefined : { signal })
  if (Exit.isSuccess(exit)) return exit.value
  if (Cause.hasInterruptsOnly(exit.cause) && signal?.aborted === true) throw signal.reason
  throw Cause.squash(exit.cause)
}

/**
 * Connects (or spawns and connects) and performs the handshake. The returned client holds the
 * connection until `close()`.
 */
export const createSdkClient = async (options: CreateSdkClientOptions): Promise<PromiseSdkClient> => {
  const scope = Scope.makeUnsafe()
  const onEvent = effectful(options.onEvent)
  const ask = options.onPermission
  // A handler that rejects denies, with its message as the reason.
  const onPermission = ask === undefined ? undefined : (request: PermissionAskParams) =>
    Effect.tryPromise(() => ask(request)).pipe(
      Effect.orElseSucceed((): PermissionAskResult => ({ allow: false, reason: "the permission handler failed" }))
    )
  const acquire: Effect.Effect<SdkClient & { readonly pid?: number | undefined }, unknown, Scope.Scope> = "command" in options
    ? spawn({ ...options, onEvent, onPermission }).pipe(Effect.provide(LocalProcessLauncher.layer()))
    : connect({ ...options, onEvent, onPermission })
  const exit = await Effect.runPromiseExit(Scope.provide(scope)(acquire))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  const client = exit.value
  const stream = (o: PromiseStreamOptions | undefined) => ({ onEvent: effectful(o?.onEvent) })
  return {
    server: client.server,
    pid: client.pid,
    ping: () => run(client.ping),
    createSession: (params) => run(client.createSession(params)),
    loadSession: (sessionId, o) => run(client.loadSession(sessionId, o)),
    listSessions: () => run(client.listSessions),
    prompt: (params, o) => run(client.prompt(params, stream(o)), o?.signal),
    cancel: (sessionId) => run(client.cancel(sessionId)),
    listChildren: (sessionId) => run(client.listChildren(sessionId)),
    sendToChild: (params, o) => run(client.sendToChild(params, stream(o)), o?.signal),
    stopChild: (params) => run(client.stopChild(params)),
    closed: Effect.runPromise(client.closed),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
