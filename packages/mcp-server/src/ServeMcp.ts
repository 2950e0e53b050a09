import { AgentHost } from "@dsh/agent"
import type { Asker } from "@dsh/tools"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, FiberSet } from "effect"
import { mcpAsker } from "./internal/ElicitAsker.ts"
import { make as makeLineTransport } from "./LineTransport.ts"
import { callTool, type ChildListeners, toCallResult } from "./internal/ToolCall.ts"
import { make as makeStopTool } from "./StopTool.ts"
import { parseTranscriptUri, transcriptUri } from "./TranscriptUri.ts"

/** The tools an MCP client is offered: the main agent's delegation and control tools, and `stop`. */
export const MCP_TOOL_NAMES: ReadonlyArray<string> = ["subagent", "send_message", "list_agents", "wait", "stop"]

/** The requests `serveMcp` answers. */
const MCP_METHODS = ["initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read"]

export interface ServeMcpOptions {
  /** Newline-delimited JSON-RPC in and out (stdin and stdout); the input's end ends the connection. */
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
  /** What `initialize` reports as `serverInfo`. */
  readonly serverInfo: { readonly name: string; readonly version: string }
  /** A session to serve (`--session`, `--continue`); without it, one is created per connection from `create`. */
  readonly sessionId?: string | undefined
  readonly create: {
    readonly cwd: string
    readonly agent?: string | undefined
    readonly model?: string | undefined
    readonly extra?: Readonly<Record<string, unknown>> | undefined
  }
  /** How a denial no one could answer says to allow the call (the CLI names its flags). */
  readonly allowHint?: Asker.AllowHint | undefined
  /** Called once the session is known (for logs, or to print it). */
  readonly onSession?: ((sessionId: string) => Effect.Effect<void>) | undefined
}

const asMcpError = (error: AgentHost.HostError): McpError =>
  new McpError(error.reason === "NotFound" || error.reason === "InvalidInput" ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.message)

/**
 * Serves the `AgentHost`'s subagent tools over MCP until the input ends: one session for the
 * connection, whose main agent the client plays. `tools/call` runs that agent's `subagent`,
 * `send_message`, `list_agents`, `wait` and `stop`; `resources/list` and `resources/read`
 * give each child's transcript. When the connection ends, calls in flight are interrupted and
 * every child still running is stopped before the effect ends. SDK handlers are Promise based:
 * each runs an Effect on a runtime tied to this scope, so nothing outlives the connection.
 */
export const serveMcp = (options: ServeMcpOptions): Effect.Effect<void, AgentHost.HostError, AgentHost.AgentHost> =>
  Effect.scoped(Effect.gen(function*() {
    const host = yield* AgentHost.AgentHost
    if (host.openMain === undefined) {
      return yield* new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot lend its main agent to an MCP client" })
    }
    const sessionId = options.sessionId ?? (yield* host.createSession(options.create)).id
    yield* options.onSession?.(sessionId) ?? Effect.void
    const stop = (handle: string) => host.stopChild({ sessionId, handle })
    const listeners: ChildListeners = new Map()
    const main = yield* host.openMain({
      sessionId,
      tools: [makeStopTool(stop)],
      onChildEvent: (handle, event) => listeners.get(handle)?.(event) ?? Effect.void
    })
    // Children of a closed connection are stopped (after the calls in flight: finalizers run in reverse).
    yield* Effect.addFinalizer(() => stop("all").pipe(Effect.ignore({ log: "Warn", message: "stopping the connection's subagents" })))
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const respond = <A>(effect: Effect.Effect<A, AgentHost.HostError>): Promise<A> =>
      run(Effect.result(effect)).then((r) => r._tag === "Success" ? r.success : Promise.reject(asMcpError(r.failure)))

    const server = new Server(
      { name: options.serverInfo.name, version: options.serverInfo.version },
      { capabilities: { tools: {}, resources: {} } }
    )
    const asker = mcpAsker(server, options.allowHint)
    const specs = main.toolbox.specs.filter((s) => MCP_TOOL_NAMES.includes(s.name))

    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: specs.map((s) => ({ name: s.name, description: s.description, inputSchema: { type: "object" as const, ...s.parameters } }))
    }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      if (!specs.some((s) => s.name === request.params.name)) {
        return toCallResult({ content: `unknown tool "${request.params.name}" (tools: ${specs.map((s) => s.name).join(", ")})`, isError: true })
      }
      return respond(callTool({ main, asker, listeners, stop }, {
        name: request.params.name,
        arguments: request.params.arguments,
        callId: `mcp-${String(extra.requestId)}`,
        progressToken: request.params._meta?.progressToken,
        signal: extra.signal,
        notify: extra.sendNotification
      }))
    })
    server.setRequestHandler(ListResourcesRequestSchema, () =>
      respond(host.listChildren(sessionId).pipe(Effect.map((children) => ({
        resources: children.map((c) => ({
          uri: transcriptUri(sessionId, c.name),
          name: `${c.name}/transcript`,
          title: `${c.name} (${c.agent}) transcript`,
          description: `The transcript (wire.jsonl) of subagent ${c.name}, ${c.status}`,
          mimeType: "application/x-ndjson"
        }))
      })))))
    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      const uri = request.params.uri
      const target = parseTranscriptUri(uri)
      if (target === undefined || target.sessionId !== sessionId) {
        return Promise.reject(new McpError(ErrorCode.InvalidParams, `unknown resource ${uri} (transcripts are dsh://${sessionId}/<handle>/transcript)`))
      }
      return respond(main.childTranscript(target.handle).pipe(Effect.map((records) => ({
        contents: [{ uri, mimeType: "application/x-ndjson", text: records.map((r) => JSON.stringify(r)).join("\n") }]
      }))))
    })

    // An unknown method is named, with the ones there are (the SDK's own answer says only "Method not found").
    server.fallbackRequestHandler = (request) =>
      // A plain Error with a code: McpError would prefix its message with "MCP error -32601: ".
      Promise.reject(Object.assign(new Error(`unknown method "${request.method}"; this server answers: ${MCP_METHODS.join(", ")}`), { code: ErrorCode.MethodNotFound }))

    const closed = yield* Deferred.make<void>()
    server.onclose = () => void run(Deferred.succeed(closed, undefined))
    yield* Effect.promise(() => server.connect(makeLineTransport(options.input, options.output)))
    yield* Deferred.await(closed)
  }))
