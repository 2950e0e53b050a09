import type { AgentHost } from "@dsh/agent"
import type { Events, Messages } from "@dsh/core"
import { Asker, type Tool } from "@dsh/tools"
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Ref } from "effect"

/** What a tool call needs of its MCP request: progress token, cancellation, a way to notify. */
export interface CallRequest {
  readonly name: string
  readonly arguments: Record<string, unknown> | undefined
  readonly callId: string
  readonly progressToken: string | number | undefined
  readonly signal: AbortSignal
  readonly notify: (notification: ServerNotification) => Promise<void>
}

/** Who hears a child's live events: one listener per handle, set while a call follows it. */
export type ChildListeners = Map<string, (event: Events.AgentEvent) => Effect.Effect<void>>

export interface CallDeps {
  readonly main: AgentHost.HostMainAgent
  readonly asker: Asker.AskerShape
  readonly listeners: ChildListeners
  readonly stop: (handle: string) => Effect.Effect<unknown, unknown>
}

/** Completes when the client cancels the request; the listener goes with the call. */
const aborted = (signal: AbortSignal) =>
  Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

export const toCallResult = (message: Pick<Messages.ToolMessage, "content" | "isError">): CallToolResult => ({
  content: [{ type: "text", text: message.content }],
  isError: message.isError === true
})

/**
 * A `subagent` call with `resultSchema` answers `{result, handle, status, text}` as JSON (the
 * model-facing tool's structured result): an MCP client gets it as `structuredContent` too, so
 * it reads the child's JSON without parsing text. Anything else is text only.
 */
export const structuredOf = (request: Pick<CallRequest, "name" | "arguments">, message: Pick<Messages.ToolMessage, "content" | "isError">): CallToolResult => {
  const result = toCallResult(message)
  if (request.name !== "subagent" || request.arguments?.["resultSchema"] === undefined || message.isError === true) return result
  try {
    const json: unknown = JSON.parse(message.content)
    return typeof json === "object" && json !== null && !Array.isArray(json) && "result" in json
      ? { ...result, structuredContent: json as Record<string, unknown> }
      : result
  } catch {
    // Not JSON (cut by the output limit): text only.
    return result
  }
}

/**
 * One `tools/call` as the main agent's call: through its toolbox (policy, validation, the
 * session's rules, output truncation; every failure an `isError` result). The foreground child
 * it starts (learned from its `subagent-start`) is followed: with a progress token, each of its
 * text deltas becomes a progress notification carrying its text so far; a cancellation stops
 * it (status `cancelled`), or interrupts the call when no child has started yet.
 */
export const callTool = (deps: CallDeps, request: CallRequest): Effect.Effect<CallToolResult> =>
  Effect.gen(function*() {
    const started = yield* Ref.make<string | undefined>(undefined)
    const text = yield* Ref.make({ progress: 0, said: "" })
    const token = request.progressToken
    const follow = (handle: string) =>
      Effect.sync(() =>
        deps.listeners.set(handle, (event) =>
          event.type !== "text-delta" || token === undefined
            ? Effect.void
            : Ref.updateAndGet(text, (t) => ({ progress: t.progress + 1, said: t.said + event.text })).pipe(
              Effect.flatMap((t) =>
                Effect.promise(() =>
                  request.notify({ method: "notifications/progress", params: { progressToken: token, progress: t.progress, message: t.said } })
                    .catch(() => undefined)
                )
              )
            ))
      )
    const turn: Tool.TurnInfo = {
      emit: (event) =>
        event.type === "subagent-start" && !event.background
          ? Ref.set(started, event.handle).pipe(Effect.andThen(follow(event.handle)))
          : Effect.void,
      conversation: Effect.succeed([]),
      systemPrompt: ""
    }
    const call = deps.main.governed(
      deps.main.toolbox.execute(
        { id: request.callId, name: request.name, arguments: JSON.stringify(request.arguments ?? {}) },
        { cwd: deps.main.cwd, agent: "main", turn }
      )
    )
    const onCancel = aborted(request.signal).pipe(
      Effect.andThen(Ref.get(started)),
      Effect.flatMap((handle) =>
        handle === undefined
          ? Effect.succeed({ content: "cancelled before a subagent started", isError: true })
          // The call then ends by itself, with the stopped child's result (which the SDK drops).
          : deps.stop(handle).pipe(Effect.ignore({ log: "Warn", message: `stopping ${handle} on cancel` }), Effect.andThen(Effect.never))
      )
    )
    const message = yield* Effect.raceFirst(call, onCancel).pipe(
      Effect.provideService(Asker.Asker, deps.asker),
      Effect.ensuring(Ref.get(started).pipe(Effect.map((h) => h !== undefined && deps.listeners.delete(h))))
    )
    return structuredOf(request, message)
  })
