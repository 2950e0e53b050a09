import type { Events, Messages } from "@dsh/core"
import { Effect, Schema, type Scope } from "effect"
import type { z } from "zod"
import { commandSubject, pathSubject, type PermissionSubject, type ToolKind, toolSubject } from "./PermissionSubject.ts"

/**
 * The turn a tool call belongs to, as the turn loop knows it. Delegation needs it: a child's
 * start and end are events of the calling agent, and a fork starts from this conversation.
 */
export interface TurnInfo {
  /** The calling agent's event sink (what the turn loop persists and forwards). */
  readonly emit: (event: Events.AgentEvent) => Effect.Effect<void>
  /** The conversation so far, without the system prompt, up to the message making this call. */
  readonly conversation: Effect.Effect<ReadonlyArray<Messages.Message>>
  /** The calling agent's rendered system prompt. */
  readonly systemPrompt: string
  /**
   * The agent's run (this turn): what a tool opens here (a background command) is closed when
   * the run ends, however it ends. Absent outside a turn loop.
   */
  readonly scope?: Scope.Scope | undefined
}

/** What a tool's handler knows about the call it serves. */
export interface ToolContext {
  /** The agent's working directory; tools resolve relative paths against it. */
  readonly cwd: string
  readonly callId: string
  /** The unique handle of the calling agent (`main`, `explore-1`, …). */
  readonly agent: string
  /** Present when the call comes from a turn loop (`runTurn`); absent for direct calls. */
  readonly turn?: TurnInfo | undefined
}

/** A handler failure the model should see (bad path, no match, …): it becomes an error result. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  message: Schema.String
}) {}

export interface ToolOutput {
  readonly content: string
  readonly isError?: boolean | undefined
  /** Images or files the result carries (a screenshot, a PDF page), after `content`'s text. */
  readonly media?: ReadonlyArray<Messages.MediaPart> | undefined
}

/**
 * A tool: a name, a description the model reads, zod parameters (each field with
 * `.describe()`), and an effectful handler. Handlers never see invalid input: arguments are
 * parsed and validated before `execute` runs, and every failure becomes a result the model
 * can act on.
 */
export interface Tool<P = unknown> {
  readonly name: string
  readonly description: string
  readonly parameters: z.ZodType<P>
  /** Whether the tool changes anything (files, processes): permission modes gate it. */
  readonly needsApproval: boolean
  /** How permission rules see a call (`Bash(<command>)`, `Write(<path>)`); default: the bare tool name. */
  readonly permission?: ToolPermission<P> | undefined
  /** A one-line human summary of a call, for approval prompts and UIs. */
  readonly summarize?: ((params: P) => string) | undefined
  readonly execute: (params: P, context: ToolContext) => Effect.Effect<string | ToolOutput, ToolError>
}

/**
 * What a call means to permission rules: its kind (what modes allow), and the command or the
 * file it touches, which rules match with `Tool(pattern)`.
 */
export interface ToolPermission<P> {
  /** A function when it depends on the call (a delegation is `read` or not by the child's tools). */
  readonly kind: ToolKind | ((params: P) => ToolKind)
  /** The file a call touches, as given: rules see it relative to the working directory. */
  readonly path?: ((params: P) => string | undefined) | undefined
  /** The command line a call runs: rules see it and each of its simple commands. */
  readonly command?: ((params: P) => string) | undefined
  /** Any other specifier, matched as text with `*` wildcards (`deploy(production)`). */
  readonly specifier?: ((params: P) => string | undefined) | undefined
  /**
   * The tool name rules see, when it is not the tool's own: a background command is the
   * subject `Bash(<command>)`, so the rules that govern Bash govern it too.
   */
  readonly as?: string | undefined
}

/** A call as permission rules see it. */
export const subjectOf = <P>(tool: Tool<P>, params: P, cwd: string): Effect.Effect<PermissionSubject> => {
  const permission = tool.permission
  const declared = permission?.kind
  const kind: ToolKind = typeof declared === "function" ? declared(params) : declared ?? (tool.needsApproval ? "other" : "read")
  const command = permission?.command?.(params)
  if (command !== undefined) return Effect.succeed(commandSubject(permission?.as ?? tool.name, command, kind))
  const path = permission?.path?.(params)
  if (path !== undefined && path !== "") return pathSubject(tool.name, path, cwd, kind)
  const specifier = permission?.specifier?.(params)
  if (specifier !== undefined && specifier !== "") return Effect.succeed({ tool: tool.name, kind, specifier, match: "text" })
  return Effect.succeed(toolSubject(tool.name, kind))
}

/** A tool in a heterogeneous collection: its parameter type is erased once it is defined. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>

/** Defines a tool with its parameter type inferred from the zod schema. */
export const defineTool = <S extends z.ZodType>(tool: {
  readonly name: string
  readonly description: string
  readonly parameters: S
  readonly needsApproval?: boolean | undefined
  readonly permission?: ToolPermission<z.output<S>> | undefined
  readonly summarize?: ((params: z.output<S>) => string) | undefined
  readonly execute: (params: z.output<S>, context: ToolContext) => Effect.Effect<string | ToolOutput, ToolError>
}): Tool<z.output<S>> => ({
  ...tool,
  parameters: tool.parameters as unknown as z.ZodType<z.output<S>>,
  needsApproval: tool.needsApproval ?? (tool.permission !== undefined && tool.permission.kind !== "read" && typeof tool.permission.kind !== "function")
})

/** Fails a handler with a message for the model. */
export const toolFail = (message: string): Effect.Effect<never, ToolError> => Effect.fail(new ToolError({ message }))
