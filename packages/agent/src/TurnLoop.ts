import { type Events, type Messages, Trace, Usage } from "@dsh/core"
import type { LanguageModel, LlmError } from "@dsh/llm"
import { Hooks, type Tool, type Toolbox } from "@dsh/tools"
import { Cause, Clock, Effect, Ref, Scope, Stream } from "effect"
import { finalText } from "./History.ts"

export const DEFAULT_MAX_STEPS = 50

/** How many times `Stop` hooks may send the main agent back to work in one turn (no loops). */
export const MAX_STOP_CONTINUATIONS = 3

export interface TurnOptions {
  /** The calling agent's unique handle (`main`, `explore-1`). */
  readonly agent: string
  /** The agent's definition name (`coder`), for the `invoke_agent` span; the handle when absent. */
  readonly agentName?: string | undefined
  /** The backend running it (`spawn`, `acp`, `main`), for the span. */
  readonly backend?: string | undefined
  readonly cwd: string
  readonly model: LanguageModel.LanguageModelShape
  readonly systemPrompt: string
  /** Evaluated before every model call, so tools registered mid-turn are offered. */
  readonly toolbox: Effect.Effect<Toolbox.Toolbox>
  /** The conversation so far (no system message). */
  readonly history: ReadonlyArray<Messages.Message>
  readonly prompt: string
  /** The prompt as content parts (text, images, files), when it has more than text; `prompt` is its text. */
  readonly promptParts?: ReadonlyArray<Messages.ContentPart> | undefined
  readonly turn: number
  readonly maxSteps?: number | undefined
  readonly thinking?: LanguageModel.ModelRequest["thinking"]
  readonly onEvent: (event: Events.AgentEvent) => Effect.Effect<void>
  /**
   * Messages to add before the next model call (e.g. background-run announcements).
   * Called before every step.
   */
  readonly beforeStep?: Effect.Effect<ReadonlyArray<Messages.Message>> | undefined
  /**
   * The hook event that may send the agent back to work when it answers: default `Stop` for
   * `main`, none for other agents; in-process children pass `SubagentStop` with their type.
   */
  readonly stopHook?: { readonly event: "Stop" | "SubagentStop"; readonly agentType?: string | undefined } | undefined
}

export interface TurnResult {
  readonly status: Events.RunStatus
  /** The final assistant text: what a parent or a user gets back. */
  readonly result: string
  readonly usage: Usage.Usage
  /** The messages this turn added, in order (user prompt included). */
  readonly messages: ReadonlyArray<Messages.Message>
  readonly durationMs: number
  readonly error?: string | undefined
  /** What the model adapter could not send or keep this turn (also `notice` events); absent when nothing. */
  readonly warnings?: ReadonlyArray<string> | undefined
}

/**
 * One turn: the model is called, the tools it asks for run (in parallel when it asks for
 * several), their results go back, until it answers without tool calls, the step limit is
 * reached or the fiber is interrupted. Every step is an event. Model failures end the
 * turn as `failed`; it never fails itself. Interruption emits `turn-end` with `cancelled`.
 */
export const runTurn = (options: TurnOptions): Effect.Effect<TurnResult> =>
  // The run's own scope: what tools open in it (background commands) ends with the run.
  Effect.acquireUseRelease(Scope.make(), (scope) => turnIn(options, scope), (scope, exit) => Scope.close(scope, exit))

const turnIn = (options: TurnOptions, scope: Scope.Scope): Effect.Effect<TurnResult> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
    const added = yield* Ref.make<Array<Messages.Message>>([])
    const usage = yield* Ref.make<Usage.Usage>(Usage.emptyUsage)
    const emit = options.onEvent
    const capture = yield* Trace.CaptureContent
    if (capture) yield* Effect.annotateCurrentSpan("gen_ai.input.messages", JSON.stringify([{ role: "user", content: options.prompt }]))
    // The same drop recurs on every step of a turn (the history is resent): say it once per turn.
    const warned = yield* Ref.make(new Set<string>())
    const warn = (message: string) =>
      Ref.modify(warned, (seen) => seen.has(message) ? [false, seen] : [true, new Set([...seen, message])]).pipe(
        Effect.flatMap((fresh) => fresh ? emit({ type: "notice", level: "warning", message }) : Effect.void)
      )
    const push = (message: Messages.Message) =>
      Ref.update(added, (xs) => [...xs, message]).pipe(Effect.andThen(emit({ type: "message", message })))

    const finish = (status: Events.RunStatus, error?: string) =>
      Effect.gen(function*() {
        const messages = yield* Ref.get(added)
        const total = yield* Ref.get(usage)
        const result = finalText(messages)
        const durationMs = (yield* Clock.currentTimeMillis) - started
        const warnings = [...(yield* Ref.get(warned))]
        yield* emit({ type: "turn-end", turn: options.turn, status, result, usage: total, durationMs, error })
        yield* Effect.annotateCurrentSpan({
          "dsh.status": status,
          "gen_ai.usage.input_tokens": total.inputTokens,
          "gen_ai.usage.output_tokens": total.outputTokens,
          ...(capture ? { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", content: result }]) } : {})
        })
        return {
          status,
          result,
          usage: total,
          messages,
          durationMs,
          error,
          ...(warnings.length > 0 ? { warnings } : {})
        } satisfies TurnResult
      })

    const hooks = yield* Hooks.Hooks
    const stopHook = options.stopHook ?? (options.agent === "main" ? { event: "Stop" as const } : undefined)
    const body = Effect.gen(function*() {
      // A UserPromptSubmit hook that blocks refuses the prompt before the model sees it.
      if (hooks.has("UserPromptSubmit")) {
        const verdict = yield* hooks.run("UserPromptSubmit", { input: { cwd: options.cwd, agent_id: options.agent, prompt: options.prompt }, emit })
        if (verdict.blocked) return yield* finish("failed", `the prompt was refused by a UserPromptSubmit hook: ${verdict.reason}`)
      }
      let continuations = 0
      yield* emit({
        type: "turn-start",
        turn: options.turn,
        prompt: options.prompt,
        ...(options.thinking === undefined ? {} : { thinking: options.thinking })
      })
      yield* push({
        role: "user",
        content: options.prompt,
        ...(options.promptParts !== undefined && options.promptParts.length > 0 ? { parts: options.promptParts } : {})
      })
      for (let step = 0; step < maxSteps; step++) {
        if (options.beforeStep !== undefined) {
          for (const m of yield* options.beforeStep) yield* push(m)
        }
        const toolbox = yield* options.toolbox
        yield* emit({ type: "step-start", turn: options.turn, step })
        const request: LanguageModel.ModelRequest = {
          messages: [{ role: "system", content: options.systemPrompt }, ...options.history, ...(yield* Ref.get(added))],
          tools: toolbox.specs,
          thinking: options.thinking
        }
        const response = yield* callModel(options.model, request, emit, warn, capture)
        yield* Ref.update(usage, (u) => Usage.addUsage(u, response.usage))
        yield* emit({ type: "usage", model: `${options.model.provider}:${options.model.model}`, usage: response.usage })
        yield* push(response.message)
        const calls = response.message.toolCalls ?? []
        if (calls.length === 0) {
          // Stop hooks may send the agent back to work, a bounded number of times.
          if (stopHook !== undefined && hooks.has(stopHook.event) && continuations < MAX_STOP_CONTINUATIONS) {
            const verdict = yield* hooks.run(stopHook.event, {
              input: { cwd: options.cwd, agent_id: options.agent, agent_type: stopHook.agentType, stop_hook_active: continuations > 0 },
              emit
            })
            if (verdict.blocked) {
              continuations++
              yield* push({ role: "user", content: `A ${stopHook.event} hook asks you to continue: ${verdict.reason}` })
              continue
            }
          }
          return yield* finish("completed")
        }
        const turnInfo: Tool.TurnInfo = {
          emit,
          conversation: Ref.get(added).pipe(Effect.map((messages) => [...options.history, ...messages])),
          systemPrompt: options.systemPrompt,
          scope
        }
        const results = yield* Effect.forEach(calls, (call) => runTool(toolbox, call, options, turnInfo), {
          concurrency: "unbounded"
        })
        for (const r of results) yield* push(r)
      }
      return yield* finish("failed", `stopped after ${maxSteps} model calls without a final answer (step limit)`)
    })

    return yield* body.pipe(
      Effect.catchTag("LlmError", (e: LlmError.LlmError) => finish("failed", e.message)),
      Effect.onInterrupt(() => finish("cancelled", "the run was cancelled").pipe(Effect.asVoid))
    )
  }).pipe(Effect.withSpan(`invoke_agent ${options.agentName ?? options.agent}`, { kind: "internal", attributes: turnSpanAttributes(options) }))

/** The `invoke_agent` span's attributes (OpenTelemetry GenAI conventions, plus dsh's own). */
const turnSpanAttributes = (options: TurnOptions) => ({
  "gen_ai.operation.name": "invoke_agent",
  "gen_ai.agent.name": options.agentName ?? options.agent,
  "gen_ai.request.model": options.model.model,
  "gen_ai.provider.name": options.model.provider,
  "dsh.agent.handle": options.agent,
  "dsh.backend": options.backend ?? "main",
  "dsh.turn": options.turn
})

/**
 * Streams one model call, forwarding text deltas, and assembles the assistant message with its
 * reasoning (kept, so the provider can get it back). What the adapter could not send becomes a
 * `notice` in the transcript, so a loss is visible to the user and to a parent reading it.
 */
const callModel = (
  model: LanguageModel.LanguageModelShape,
  request: LanguageModel.ModelRequest,
  emit: (e: Events.AgentEvent) => Effect.Effect<void>,
  warn: (message: string) => Effect.Effect<void>,
  capture: boolean
) =>
  Effect.gen(function*() {
    // What the stream said, folded part by part (calls and reasoning appended in place: one
    // response may carry a thousand calls).
    const heard = yield* model.stream(request).pipe(
      Stream.runFoldEffect((): Heard => ({ text: "", usage: Usage.emptyUsage, calls: [], reasoning: [] }), (acc, part): Effect.Effect<Heard> => {
        switch (part.type) {
          case "text-delta":
            return Effect.as(emit({ type: "text-delta", text: part.text }), { ...acc, text: acc.text + part.text })
          case "tool-call":
            acc.calls.push(part.call)
            return Effect.succeed(acc)
          case "finish":
            return Effect.as(
              Effect.annotateCurrentSpan({
                "gen_ai.response.finish_reasons": [part.reason],
                "gen_ai.usage.input_tokens": part.usage.inputTokens,
                "gen_ai.usage.output_tokens": part.usage.outputTokens
              }),
              { ...acc, usage: part.usage }
            )
          case "reasoning":
            acc.reasoning.push(part.part)
            return Effect.succeed(acc)
          case "warning":
            return Effect.as(warn(`${model.provider}:${model.model}: ${part.message}`), acc)
          case "reasoning-delta":
            return Effect.succeed(acc)
        }
      }),
      Effect.tap((h) =>
        capture
          ? Effect.annotateCurrentSpan("gen_ai.output.messages", JSON.stringify([{ role: "assistant", content: h.text, ...(h.calls.length > 0 ? { tool_calls: h.calls } : {}) }]))
          : Effect.void
      ),
      // OpenTelemetry GenAI conventions: `chat <model>`, text only when the harness captures content.
      Effect.withSpan(`chat ${model.model}`, {
        kind: "client",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": model.provider,
          "gen_ai.request.model": model.model,
          "dsh.messages": request.messages.length,
          ...(capture ? { "gen_ai.input.messages": JSON.stringify(request.messages) } : {})
        }
      })
    )
    const message: Messages.AssistantMessage = {
      role: "assistant",
      content: heard.text,
      ...(heard.calls.length > 0 ? { toolCalls: heard.calls } : {}),
      ...(heard.reasoning.length > 0 ? { reasoning: heard.reasoning } : {})
    }
    return { message, usage: heard.usage }
  })

/** What one model call's stream said so far. */
interface Heard {
  readonly text: string
  readonly usage: Usage.Usage
  readonly calls: Array<Messages.ToolCall>
  readonly reasoning: Array<Messages.ReasoningPart>
}

const runTool = (
  toolbox: Toolbox.Toolbox,
  call: Messages.ToolCall,
  options: TurnOptions,
  turn: Tool.TurnInfo
): Effect.Effect<Messages.ToolMessage> =>
  Effect.gen(function*() {
    const emit = turn.emit
    const started = yield* Clock.currentTimeMillis
    yield* emit({ type: "tool-call", id: call.id, name: call.name, input: call.arguments })
    const result = yield* toolbox.execute(call, { cwd: options.cwd, agent: options.agent, turn }).pipe(
      Effect.withSpan(`execute_tool ${call.name}`, {
        kind: "internal",
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": call.name,
          "gen_ai.tool.call.id": call.id,
          "dsh.agent.handle": options.agent
        }
      }),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.succeed<Messages.ToolMessage>({
            role: "tool",
            toolCallId: call.id,
            name: call.name,
            content: `Error: ${call.name} failed: ${Cause.pretty(cause).split("\n")[0]}`,
            isError: true
          })
      )
    )
    yield* emit({
      type: "tool-result",
      id: call.id,
      name: call.name,
      output: result.content,
      isError: result.isError === true,
      durationMs: (yield* Clock.currentTimeMillis) - started
    })
    return result
  })
