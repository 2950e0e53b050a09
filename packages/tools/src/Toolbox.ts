import type { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { Cause, Effect } from "effect"
import * as z from "zod"
import { Hooks } from "./Hooks.ts"
import { inheritedDenial } from "./InheritedDisallow.ts"
import { Permissions, permissionEvent } from "./Permissions.ts"
import { type AnyTool, subjectOf, type ToolContext } from "./Tool.ts"
import { compilePolicy, type ToolPolicy } from "./ToolPolicy.ts"

/** Output longer than this is cut, in one central place, with a note saying so. */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000

export const truncateOutput = (text: string, max: number): string =>
  text.length <= max
    ? text
    : `${text.slice(0, max)}\n… [output truncated: ${text.length - max} more characters]`

export interface ToolboxOptions {
  readonly tools: ReadonlyArray<AnyTool>
  readonly policy?: ToolPolicy | undefined
  /**
   * Tools an ancestor's `disallowedTools` forbid (`InheritedDisallowedTools`): hidden from the
   * model like the agent's own, and a call to one is a permission denial saying why.
   */
  readonly inheritedDisallowed?: ReadonlyArray<string> | undefined
  readonly maxOutputChars?: number | undefined
}

/**
 * The tools one agent may use, after its policy. `specs` is what the model is offered;
 * `execute` checks the policy again, validates the arguments, asks `Permissions` (recording
 * a `permission` event in the calling turn), runs the handler and turns every failure into an error result. It never fails.
 */
export interface Toolbox {
  readonly names: ReadonlyArray<string>
  readonly specs: ReadonlyArray<LanguageModel.ToolSpec>
  readonly execute: (call: Messages.ToolCall, context: Omit<ToolContext, "callId">) => Effect.Effect<Messages.ToolMessage>
}

// Toolboxes are built per agent context and tools are made per context from shared zod
// schemas: converting each schema once keeps that cheap.
const schemaCache = new WeakMap<object, Record<string, unknown>>()

const jsonSchemaOf = (tool: AnyTool): Record<string, unknown> => {
  const cached = schemaCache.get(tool.parameters)
  if (cached !== undefined) return cached
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<string, unknown>
  schemaCache.set(tool.parameters, schema)
  return schema
}

const formatIssues = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ")

export const make = (options: ToolboxOptions): Toolbox => {
  const own = compilePolicy(options.policy ?? {})
  const inherited = compilePolicy({ disallowedTools: options.inheritedDisallowed })
  const allowed = (name: string) => own(name) && inherited(name)
  const max = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS
  const visible = options.tools.filter((t) => allowed(t.name))
  const byName = new Map(visible.map((t) => [t.name, t]))
  const specs = visible.map((t): LanguageModel.ToolSpec => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t) }))
  const names = visible.map((t) => t.name)

  const execute = (call: Messages.ToolCall, context: Omit<ToolContext, "callId">): Effect.Effect<Messages.ToolMessage> => {
    const result = (content: string, isError: boolean, media: ReadonlyArray<Messages.MediaPart> = []): Messages.ToolMessage => {
      const text = truncateOutput(content, max)
      return {
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: text,
        ...(isError ? { isError: true } : {}),
        // Parts only when there is media: a text-only result stays as it always was.
        ...(media.length > 0 ? { parts: [...(text === "" ? [] : [{ type: "text" as const, text }]), ...media] } : {})
      }
    }
    return Effect.gen(function*() {
      const tool = byName.get(call.name)
      if (tool === undefined && own(call.name) && !inherited(call.name) && options.tools.some((t) => t.name === call.name)) {
        return result(inheritedDenial(call.name), true)
      }
      if (tool === undefined || !allowed(call.name)) {
        return result(`Error: unknown tool "${call.name}". Available tools: ${names.join(", ") || "(none)"}.`, true)
      }
      let raw: unknown
      try {
        raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments)
      } catch {
        return result(`Error: the arguments for ${call.name} are not valid JSON: ${call.arguments.slice(0, 200)}`, true)
      }
      const parsed = tool.parameters.safeParse(raw)
      if (!parsed.success) {
        return result(`Error: invalid arguments for ${call.name}: ${formatIssues(parsed.error)}`, true)
      }
      // PreToolUse hooks come first (as in Claude Code): they may block the call or settle its question.
      const hooks = yield* Hooks
      const emit = context.turn?.emit
      const hookInput = { cwd: context.cwd, agent_id: context.agent, tool_name: call.name, tool_input: parsed.data }
      const pre = hooks.has("PreToolUse") ? yield* hooks.run("PreToolUse", { input: hookInput, emit, id: call.id }) : undefined
      if (pre?.blocked === true) return result(pre.reason, true)
      // Every call is decided by the permission rules of the calling fiber (the whole tree's).
      const permissions = yield* Permissions
      if (permissions.configured) {
        const decision = yield* permissions.decide({
          agent: context.agent,
          cwd: context.cwd,
          subject: yield* subjectOf(tool, parsed.data, context.cwd),
          summary: tool.summarize?.(parsed.data) ?? `${tool.name} ${call.arguments.slice(0, 200)}`,
          input: parsed.data,
          hook: pre?.permission
        })
        // On the caller's `execute_tool` span: how the call was let through or refused.
        yield* Effect.annotateCurrentSpan({ "dsh.permission.decision": decision.allowed ? "allow" : "deny", "dsh.permission.via": decision.via })
        if (context.turn !== undefined) yield* context.turn.emit(permissionEvent(call.id, decision))
        if (!decision.allowed) return result(`Error: permission denied: ${decision.reason ?? decision.subject}`, true)
      }
      const output = yield* tool.execute(parsed.data, { ...context, callId: call.id }).pipe(
        Effect.map((o) =>
          typeof o === "string"
            ? { content: o, isError: false }
            : { content: o.content, isError: o.isError ?? false, media: o.media ?? [] }
        ),
        Effect.catchTag("ToolError", (e) => Effect.succeed({ content: `Error: ${e.message}`, isError: true })),
        // A defect in a handler is a bug, but it must not take the agent down: report it to the model.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.succeed({ content: `Error: ${call.name} crashed: ${Cause.pretty(cause).split("\n")[0]}`, isError: true })
        )
      )
      if (!hooks.has("PostToolUse")) return result(output.content, output.isError, "media" in output ? output.media : [])
      // The tool ran; a blocking PostToolUse hook's reason is added for the model to read.
      const post = yield* hooks.run("PostToolUse", {
        input: { ...hookInput, tool_response: { content: output.content, is_error: output.isError } },
        emit,
        id: call.id
      })
      const content = post.blocked ? `${output.content}\n[PostToolUse hook] ${post.reason}` : output.content
      return result(content, output.isError, "media" in output ? output.media : [])
    })
  }
  return { names, specs, execute }
}
