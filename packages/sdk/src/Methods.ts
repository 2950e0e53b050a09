import { AgentHost } from "@dsh/agent"
import { Events, Usage } from "@dsh/core"
import { PermissionPolicy } from "@dsh/tools"
import { Schema, Struct } from "effect"
import { AgentEventSchema, ContentPartSchema, WireRecordSchema } from "./EventSchema.ts"
import { RequestId } from "./Protocol.ts"

/**
 * Every method's params and result, and every notification's params: the single source of
 * truth. The server decodes params with these before calling its host; the client decodes
 * results and notifications with them before handing them over. PROTOCOL.md documents them.
 */

/** `AgentHost.HostSessionInfo` on the wire; an unreadable session's `error` stays with the server. */
export const SessionInfo = AgentHost.HostSessionInfo.mapFields((fields) => Struct.omit(fields, ["error"]))
export type SessionInfo = typeof SessionInfo.Type

/** `AgentHost.HostChildSummary` on the wire, as PROTOCOL.md lists it (without `archived`). */
export const ChildSummary = AgentHost.HostChildSummary.mapFields((fields) => Struct.omit(fields, ["archived"]))
export type ChildSummary = typeof ChildSummary.Type

const Empty = Schema.Struct({})
const SessionRef = Schema.Struct({ sessionId: Schema.String })

export const ClientInfo = Schema.Struct({ name: Schema.String, version: Schema.String })

/** What a client can do besides calling: `permissions` = it answers `permission.ask`. */
export const ClientCapabilities = Schema.Struct({ permissions: Schema.optional(Schema.Boolean) })

export const InitializeParams = Schema.Struct({
  protocolVersion: Schema.Number,
  clientInfo: Schema.optional(ClientInfo),
  capabilities: Schema.optional(ClientCapabilities)
})

export const ServerCapabilities = Schema.Struct({
  /** Methods this server answers (a `children.*` method may be listed yet answer `Unsupported` per host). */
  methods: Schema.Array(Schema.String),
  /** Whether `children.send` / `children.stop` are backed by the host. */
  children: Schema.Struct({ send: Schema.Boolean, stop: Schema.Boolean }),
  /** The largest frame the server accepts and sends, in bytes. */
  maxFrameBytes: Schema.Number
})

export const InitializeResult = Schema.Struct({
  protocolVersion: Schema.Number,
  serverInfo: Schema.Struct({ name: Schema.String, version: Schema.String }),
  capabilities: ServerCapabilities
})
export type InitializeResult = typeof InitializeResult.Type

/** Permission settings as a parent passes them: `{mode?, allow?, ask?, deny?}`. */
/** A permission settings entry on the wire (`PermissionPolicy.PermissionSettingsAsWritten`: the mode as text). */
export const PermissionSettingsSchema = PermissionPolicy.PermissionSettingsAsWritten

export const SessionCreateParams = Schema.Struct({
  /** Working directory of the session; default: the server's. */
  cwd: Schema.optional(Schema.String),
  /** Agent name; default: the server's default main agent. */
  agent: Schema.optional(Schema.String),
  /** Model spec (`openai:gpt-4.1`); default: the server's. */
  model: Schema.optional(Schema.String),
  /** The caller's permission settings: the session's own rules are narrowed by them (never widened). */
  permissions: Schema.optional(Schema.Array(PermissionSettingsSchema))
})

export const SessionLoadParams = Schema.Struct({
  sessionId: Schema.String,
  /** Return the persisted transcript too (it can be large). */
  includeRecords: Schema.optional(Schema.Boolean)
})

export const SessionLoadResult = Schema.Struct({
  session: SessionInfo,
  /** Completed turns so far. */
  turns: Schema.Number,
  records: Schema.optional(Schema.Array(WireRecordSchema))
})
export type SessionLoadResult = typeof SessionLoadResult.Type

export const SessionPromptParams = Schema.Struct({
  sessionId: Schema.String,
  prompt: Schema.String,
  /** The prompt as content parts (text, images, files); `prompt` stays its text. */
  promptParts: Schema.optional(Schema.Array(ContentPartSchema)),
  maxSteps: Schema.optional(Schema.Number),
  /** The caller's W3C trace context: the turn's spans continue the caller's trace. */
  traceparent: Schema.optional(Schema.String)
})
export type SessionPromptParams = typeof SessionPromptParams.Type

export const PromptResult = Schema.Struct({
  sessionId: Schema.String,
  /** From the runtime, never from model text; `cancelled` after `session.cancel`. */
  status: Events.RunStatus,
  result: Schema.String,
  /** The main agent's own model usage in this turn. */
  usage: Usage.Usage,
  /** `usage` plus every descendant's usage during this turn (rolled up). */
  totalUsage: Usage.Usage,
  /** What `usage` cost in US dollars, where the server has pricing for the model. */
  cost: Schema.optional(Schema.Number),
  subagents: Schema.Array(ChildSummary),
  error: Schema.optional(Schema.String)
})
export type PromptResult = typeof PromptResult.Type

export const ChildrenSendParams = Schema.Struct({ sessionId: Schema.String, handle: Schema.String, message: Schema.String })

/** `queued`: the child was running; it gets the message at its next step. */
export const ChildReply = Schema.Struct({
  handle: Schema.String,
  status: Schema.Union([Events.RunStatus, Schema.Literal("queued")]),
  result: Schema.String,
  usage: Usage.Usage,
  cost: Schema.optional(Schema.Number),
  notes: Schema.optional(Schema.String)
})
export type ChildReply = typeof ChildReply.Type

export const ChildrenStopParams = Schema.Struct({
  sessionId: Schema.String,
  /** A child's handle, or `all`. */
  handle: Schema.String
})

/** Every request method: params in, result out. */
export const Methods = {
  initialize: { params: InitializeParams, result: InitializeResult },
  ping: { params: Empty, result: Empty },
  "session.create": { params: SessionCreateParams, result: Schema.Struct({ session: SessionInfo }) },
  "session.load": { params: SessionLoadParams, result: SessionLoadResult },
  "session.list": { params: Empty, result: Schema.Struct({ sessions: Schema.Array(SessionInfo) }) },
  "session.prompt": { params: SessionPromptParams, result: PromptResult },
  "session.cancel": { params: SessionRef, result: Schema.Struct({ cancelled: Schema.Boolean }) },
  "children.list": { params: SessionRef, result: Schema.Struct({ children: Schema.Array(ChildSummary) }) },
  "children.send": { params: ChildrenSendParams, result: ChildReply },
  "children.stop": { params: ChildrenStopParams, result: Schema.Struct({ stopped: Schema.Array(Schema.String) }) }
} as const

export type MethodName = keyof typeof Methods
export type ParamsOf<M extends MethodName> = (typeof Methods)[M]["params"]["Type"]
export type ResultOf<M extends MethodName> = (typeof Methods)[M]["result"]["Type"]

export const isMethodName = (name: string): name is MethodName => Object.hasOwn(Methods, name)

/** One agent event, for a session's main agent (`handle` absent) or one of its descendants. */
export const SessionEvent = Schema.Struct({
  sessionId: Schema.String,
  /** The descendant's handle; absent for the session's main agent. */
  handle: Schema.optional(Schema.String),
  event: AgentEventSchema
})
export type SessionEvent = typeof SessionEvent.Type

/** A question the server's rules leave to the client (`permission.ask`). */
export const PermissionAskParams = Schema.Struct({
  sessionId: Schema.String,
  question: Schema.Struct({
    /** The asking agent's handle in the server's tree (`main`, `explore-1`). */
    agent: Schema.String,
    /** The call as rules see it: `Bash(git push)`. */
    subject: Schema.String,
    tool: Schema.String,
    kind: Schema.Literals(["read", "edit", "execute", "other"]),
    specifier: Schema.optional(Schema.String),
    summary: Schema.String,
    /** Why it is asked: `ask: Bash` or `mode: default`. */
    reason: Schema.String,
    cwd: Schema.String
  })
})
export type PermissionAskParams = typeof PermissionAskParams.Type

/** The client's answer: allow (once, or for the rest of the session) or deny, with a reason for the model. */
export const PermissionAskResult = Schema.Struct({
  allow: Schema.Boolean,
  remember: Schema.optional(Schema.Literals(["once", "session"])),
  reason: Schema.optional(Schema.String)
})
export type PermissionAskResult = typeof PermissionAskResult.Type

/** Requests the server sends to a client that declared the capability. */
export const ClientMethods = {
  "permission.ask": { params: PermissionAskParams, result: PermissionAskResult }
} as const

/** Notifications: `session.event` (server → client) and `$/cancelRequest` (client → server). */
export const Notifications = {
  "session.event": SessionEvent,
  "$/cancelRequest": Schema.Struct({ id: RequestId })
} as const
