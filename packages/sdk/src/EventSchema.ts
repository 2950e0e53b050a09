import { Events, type Messages, Usage } from "@dsh/core"
import { Schema, Tuple } from "effect"

/**
 * `@dsh/core`'s event vocabulary as schemas, so both ends of the protocol validate what they
 * receive. The compile-time checks at the bottom keep these in step with the core types: a
 * change there that is not mirrored here fails the build.
 */

const ToolCallSchema = Schema.Struct({ id: Schema.String, name: Schema.String, arguments: Schema.String })

const media = { mediaType: Schema.String, data: Schema.optional(Schema.String), url: Schema.optional(Schema.String) }

/** A message's content part (`@dsh/core` `ContentPart`): text, image or file. */
export const ContentPartSchema = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("image"), ...media }),
  Schema.Struct({ type: Schema.Literal("file"), ...media, filename: Schema.optional(Schema.String) })
])

/** A reasoning part (`@dsh/core` `ReasoningPart`); signature and metadata are opaque. */
export const ReasoningPartSchema = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  provider: Schema.optional(Schema.String),
  signature: Schema.optional(Schema.String),
  redactedData: Schema.optional(Schema.String),
  providerMetadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})

// The part fields are optional: messages written before they existed decode unchanged.
export const MessageSchema = Schema.Union([
  Schema.Struct({ role: Schema.Literal("system"), content: Schema.String }),
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.String, parts: Schema.optional(Schema.Array(ContentPartSchema)) }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.String,
    toolCalls: Schema.optional(Schema.Array(ToolCallSchema)),
    reasoning: Schema.optional(Schema.Array(ReasoningPartSchema))
  }),
  Schema.Struct({
    role: Schema.Literal("tool"),
    toolCallId: Schema.String,
    name: Schema.String,
    content: Schema.String,
    isError: Schema.optional(Schema.Boolean),
    parts: Schema.optional(Schema.Array(ContentPartSchema))
  })
])

const eventCases = [
  Schema.Struct({ type: Schema.Literal("session-start"), sessionId: Schema.String, agent: Schema.String, cwd: Schema.String, model: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("turn-start"),
    turn: Schema.Number,
    prompt: Schema.String,
    thinking: Schema.optional(Schema.Literals(["off", "low", "medium", "high"]))
  }),
  Schema.Struct({ type: Schema.Literal("step-start"), turn: Schema.Number, step: Schema.Number }),
  Schema.Struct({ type: Schema.Literal("text-delta"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("message"), message: MessageSchema }),
  Schema.Struct({ type: Schema.Literal("tool-call"), id: Schema.String, name: Schema.String, input: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("tool-result"),
    id: Schema.String,
    name: Schema.String,
    output: Schema.String,
    isError: Schema.Boolean,
    durationMs: Schema.Number
  }),
  Schema.Struct({ type: Schema.Literal("usage"), model: Schema.String, usage: Usage.Usage, cost: Schema.optional(Schema.Number) }),
  Schema.Struct({
    type: Schema.Literal("turn-end"),
    turn: Schema.Number,
    status: Events.RunStatus,
    result: Schema.String,
    usage: Usage.Usage,
    durationMs: Schema.Number,
    error: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("subagent-start"),
    handle: Schema.String,
    agent: Schema.String,
    provider: Schema.String,
    runId: Schema.String,
    background: Schema.Boolean,
    description: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("subagent-end"),
    handle: Schema.String,
    runId: Schema.String,
    status: Events.RunStatus,
    usage: Usage.Usage,
    durationMs: Schema.Number,
    result: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("permission"),
    id: Schema.String,
    subject: Schema.String,
    decision: Schema.Literals(["allowed", "denied"]),
    via: Schema.Literals(["rule", "mode", "asked"]),
    rule: Schema.optional(Schema.String),
    by: Schema.optional(Schema.String),
    remember: Schema.optional(Schema.Literals(["once", "session"]))
  }),
  Schema.Struct({ type: Schema.Literal("notice"), level: Schema.Literals(["info", "warning", "error"]), message: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("todo"),
    todos: Schema.Array(Schema.Struct({
      content: Schema.String,
      status: Schema.Literals(["pending", "in_progress", "completed"]),
      activeForm: Schema.optional(Schema.String)
    }))
  }),
  Schema.Struct({
    type: Schema.Literal("hook"),
    event: Schema.String,
    hook: Schema.String,
    outcome: Schema.Literals(["continue", "block", "allow", "deny", "ask", "warning"]),
    id: Schema.optional(Schema.String),
    exitCode: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String),
    durationMs: Schema.Number
  })
] as const

/** Every agent event (`@dsh/core` `AgentEvent`). */
export const AgentEventSchema = Schema.Union(eventCases)

/** A persisted `wire.jsonl` record: an event plus its sequence number and timestamp. */
export const WireRecordSchema = AgentEventSchema.mapMembers(Tuple.map(Schema.fieldsAssign({ seq: Schema.Number, ts: Schema.String })))

// Compile-time agreement with @dsh/core (both directions).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const agree = <T extends true>(): T | undefined => undefined
agree<Same<typeof AgentEventSchema.Type, Events.AgentEvent>>()
agree<Same<typeof MessageSchema.Type, Messages.Message>>()
agree<Same<typeof ContentPartSchema.Type, Messages.ContentPart>>()
agree<Same<typeof ReasoningPartSchema.Type, Messages.ReasoningPart>>()
agree<Same<typeof WireRecordSchema.Type, Events.WireRecord>>()
