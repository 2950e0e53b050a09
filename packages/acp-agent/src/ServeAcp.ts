import * as acp from "@agentclientprotocol/sdk/unstable"
import { AgentHost } from "@dsh/agent"
import type { Tool } from "@dsh/tools"
import { Deferred, Effect, FiberSet, type Scope } from "effect"
import { isAbsolute } from "node:path"
import { AcpServeError, toRequestError } from "./AcpServeError.ts"
import { type ClientFeatures, replayRecords } from "./internal/Reporter.ts"
import { connectServers, hostFailure, runPrompt, type ServedSession } from "./internal/Served.ts"

/** Helpers of the ACP mapping that tests and other servers reuse. */
export { DENY_REASON_META } from "./internal/Permission.ts"
export { childSessionId } from "./internal/Reporter.ts"
export { promptText, toolKind, toolTitle } from "./internal/Updates.ts"

/** The minimal logger `serveAcp` writes to (pino fits). Never stdout: that is the protocol's. */
export interface AcpLogger {
  readonly info: (fields: object, message: string) => void
  readonly warn: (fields: object, message: string) => void
}

export interface ServeAcpOptions {
  /** The framed message stream: `acp.ndJsonStream(writable, readable)` over stdio, or an in-memory pair. */
  readonly stream: acp.Stream
  /** What `initialize` reports as `agentInfo`. */
  readonly agentInfo: { readonly name: string; readonly version: string; readonly title?: string | undefined }
  /** The agent and model of new sessions (`dsh acp --agent/--model`); the host's defaults otherwise. */
  readonly defaults?: { readonly agent?: string | undefined; readonly model?: string | undefined } | undefined
  /** The model's context window in tokens, when known: enables `usage_update`. */
  readonly contextWindow?: number | undefined
  /**
   * Connects the MCP servers a client gives in `session/new` or `session/load` and returns
   * their tools (named `mcp__<server>__<tool>`), which that session's prompts then have; the
   * connections live as long as the session is served (`connectMcpServers` of
   * `@dsh/tools-mcp` fits). Failing names the server that could not be used. Without it, MCP
   * servers are refused, and `initialize` says so.
   */
  readonly connectMcp?: ((servers: ReadonlyArray<acp.McpServer>) => Effect.Effect<ReadonlyArray<Tool.AnyTool>, string, Scope.Scope>) | undefined
  readonly logger?: AcpLogger | undefined
}

/**
 * Where a dsh parent puts its permission settings in `session/new`'s `_meta` (a list of
 * `{mode, allow, ask, deny}`): the session decides by its own rules narrowed by these.
 */
export const PERMISSIONS_META = "dsh/permissions"

/** What this agent can do, as `initialize` answers it. */
const initializeResponse = (options: ServeAcpOptions): acp.InitializeResponse =>
  ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: options.connectMcp !== undefined, sse: false },
      sessionCapabilities: { list: {} }
    },
    agentInfo: { name: options.agentInfo.name, title: options.agentInfo.title ?? options.agentInfo.name, version: options.agentInfo.version },
    authMethods: []
  }) satisfies acp.InitializeResponse

/**
 * Serves the `AgentHost` of the context over ACP on `options.stream` until the peer closes
 * it; then every running prompt is interrupted and the effect ends. SDK handlers are Promise
 * based: each one runs an Effect on a runtime captured here (a `FiberSet` tied to this scope),
 * so nothing outlives the connection. Failures reach the client as JSON-RPC errors.
 */
export const serveAcp = (options: ServeAcpOptions): Effect.Effect<void, never, AgentHost.AgentHost> =>
  Effect.scoped(Effect.gen(function*() {
    const host: AgentHost.AgentHostShape = yield* AgentHost.AgentHost
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const respond = <A>(effect: Effect.Effect<A, AcpServeError>): Promise<A> =>
      run(Effect.result(effect)).then((r) => r._tag === "Success" ? r.success : Promise.reject(toRequestError(r.failure)))
    const sessions = new Map<string, ServedSession>()
    let features: ClientFeatures = { subagents: false, notices: false }
    const log = options.logger

    const register = (id: string, cwd: string): ServedSession => {
      const existing = sessions.get(id)
      if (existing !== undefined) return existing
      const session: ServedSession = { id, cwd, running: undefined, permissions: undefined, mcp: undefined }
      sessions.set(id, session)
      return session
    }

    const serveScope = yield* Effect.scope

    const checkCwd = (cwd: string) =>
      isAbsolute(cwd) ? Effect.void : Effect.fail(new AcpServeError({ reason: "InvalidParams", message: `cwd must be an absolute path (got "${cwd}")` }))

    const newSession = (params: acp.NewSessionRequest) =>
      Effect.gen(function*() {
        yield* checkCwd(params.cwd)
        if (params.mcpServers.length > 0 && options.connectMcp === undefined) {
          return yield* new AcpServeError({ reason: "InvalidParams", message: `this agent cannot connect MCP servers (${params.mcpServers.map((s) => s.name).join(", ")})` })
        }
        // A dsh parent passes its rules: this session's can then only be narrower.
        const parent = params._meta?.[PERMISSIONS_META]
        const info = yield* host.createSession({
          cwd: params.cwd,
          agent: options.defaults?.agent,
          model: options.defaults?.model,
          ...(parent === undefined ? {} : { extra: { parentPermissions: parent } })
        }).pipe(
          Effect.mapError(hostFailure)
        )
        yield* connectServers(register(info.id, info.cwd), params.mcpServers, serveScope, options.connectMcp, log)
        log?.info({ sessionId: info.id, cwd: info.cwd, agent: info.agent, model: info.model }, "session created")
        return { sessionId: info.id } satisfies acp.NewSessionResponse
      })

    /** A session this process has not seen yet is looked up in the store (prompt after a restart). */
    const sessionFor = (id: string) =>
      Effect.suspend(() => {
        const known = sessions.get(id)
        if (known !== undefined) return Effect.succeed(known)
        return host.loadSession(id).pipe(
          Effect.map((info) => register(info.id, info.cwd)),
          Effect.mapError((e) => e.reason === "NotFound" ? new AcpServeError({ reason: "SessionNotFound", message: `no session ${id}` }) : hostFailure(e))
        )
      })

    const loadSession = (params: acp.LoadSessionRequest, client: acp.AgentContext) =>
      Effect.gen(function*() {
        const info = yield* host.loadSession(params.sessionId).pipe(
          Effect.mapError((e) =>
            e.reason === "NotFound" ? new AcpServeError({ reason: "SessionNotFound", message: `no session ${params.sessionId}` }) : hostFailure(e)
          )
        )
        const session = register(info.id, info.cwd)
        yield* connectServers(session, params.mcpServers, serveScope, options.connectMcp, log)
        yield* replayRecords({ client, sessionId: session.id, cwd: session.cwd, features, records: info.records })
        log?.info({ sessionId: info.id, records: info.records.length }, "session loaded")
        return {} satisfies acp.LoadSessionResponse
      })

    const listSessions = (params: acp.ListSessionsRequest) =>
      host.listSessions.pipe(
        Effect.map((all) => ({
          sessions: all.filter((s) => params.cwd == null || s.cwd === params.cwd).map((s) => ({
            sessionId: s.id,
            cwd: s.cwd,
            title: `${s.agent} (${s.model})`,
            updatedAt: s.updatedAt
          }))
        }) satisfies acp.ListSessionsResponse),
        Effect.mapError(hostFailure)
      )

    const prompt = (params: acp.PromptRequest, client: acp.AgentContext) =>
      sessionFor(params.sessionId).pipe(
        Effect.flatMap((session) => runPrompt({ host, session, params, client, features, contextWindow: options.contextWindow, log }))
      )

    /** `session/cancel`: the running prompt stops and answers `cancelled`, with its usage so far. */
    const cancel = (sessionId: string) =>
      Effect.suspend(() => {
        const running = sessions.get(sessionId)?.running
        return running === undefined ? Effect.void : Deferred.succeed(running, undefined).pipe(Effect.asVoid)
      })

    const app = acp.agent({ name: options.agentInfo.name })
      .onRequest(acp.methods.agent.initialize, ({ params }) => {
        const caps = params.clientCapabilities
        features = { subagents: caps?.subagents != null, notices: caps?.session?.notices != null }
        return initializeResponse(options)
      })
      .onRequest(acp.methods.agent.session.new, ({ params }) => respond(newSession(params)))
      .onRequest(acp.methods.agent.session.load, ({ params, client }) => respond(loadSession(params, client)))
      .onRequest(acp.methods.agent.session.list, ({ params }) => respond(listSessions(params)))
      .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => respond(prompt(params, client)))
      .onNotification(acp.methods.agent.session.cancel, ({ params }) => run(cancel(params.sessionId)))

    const connection = yield* Effect.acquireRelease(
      Effect.sync(() => app.connect(options.stream)),
      (c) => Effect.sync(() => c.close())
    )
    log?.info({}, "acp connection open")
    // The peer closing the stream (stdin EOF) ends the connection; the scope then stops all prompts.
    yield* Effect.promise(() => connection.closed)
    log?.info({}, "acp connection closed")
  }))
