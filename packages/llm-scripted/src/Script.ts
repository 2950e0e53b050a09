import { Schema, Struct } from "effect"

/** The conditions under which a rule answers: each one optional; all given conditions must hold. */
export const ScriptWhen = Schema.Struct({
  /** Regex tested against the system prompt. */
  system: Schema.String,
  /** Regex tested against the latest user message; its capture groups fill `{{1}}`, `{{2}}`, … */
  lastUser: Schema.String,
  /** Regex tested against the latest tool result. */
  lastTool: Schema.String,
  /** Model calls already made since the latest user message (0 for the first call of a turn). */
  step: Schema.Number,
  /** Whether a tool with this name is offered. */
  hasTool: Schema.String
}).mapFields(Struct.map(Schema.optional))
export type ScriptWhen = typeof ScriptWhen.Type

export const ScriptToolCall = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optional(Schema.Unknown)
})

/** What the model answers: text, tool calls, or a failure, after an optional delay. */
export const ScriptReply = Schema.Struct({
  text: Schema.optional(Schema.String),
  /** Reasoning streamed before the answer (a `reasoning` part of provider `scripted`, signature `scripted`). */
  reasoning: Schema.optional(Schema.String),
  toolCalls: Schema.optional(Schema.Array(ScriptToolCall)),
  usage: Schema.optional(Schema.Struct({ input: Schema.Number, output: Schema.Number })),
  delayMs: Schema.optional(Schema.Number),
  /** Never answer (until interrupted): for timeout and cancellation tests. */
  hang: Schema.optional(Schema.Boolean),
  error: Schema.optional(Schema.Struct({
    reason: Schema.Literals(["Authentication", "RateLimited", "BadResponse", "ContextOverflow", "InvalidRequest", "ServerError", "Network"]),
    detail: Schema.String
  }))
})
export type ScriptReply = typeof ScriptReply.Type

export const ScriptRule = Schema.Struct({
  when: Schema.optional(ScriptWhen),
  reply: ScriptReply
})
export type ScriptRule = typeof ScriptRule.Type

/** A script: rules tried in order (the first match answers), then the fallback. */
export const Script = Schema.Struct({
  name: Schema.optional(Schema.String),
  rules: Schema.Array(ScriptRule),
  fallback: Schema.optional(ScriptReply)
})
export type Script = typeof Script.Type
