import { Events, type Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import type { SessionError, SessionStore } from "@dsh/session"
import { Effect } from "effect"
import { historyFromRecords } from "./History.ts"
import { runTurn, type TurnOptions, type TurnResult } from "./TurnLoop.ts"

/** A turn's options (agent, span names, cwd, model, system prompt, toolbox), on a persisted conversation. */
export interface RunPromptOptions extends Pick<TurnOptions, "agent" | "agentName" | "backend" | "cwd" | "model" | "systemPrompt" | "toolbox"> {
  /** Where the conversation lives; its history is loaded before the turn. */
  readonly transcript: SessionStore.Transcript
  readonly prompt: string
  /** The prompt as content parts, when it carries images or files (`prompt` is its text). */
  readonly promptParts?: ReadonlyArray<Messages.ContentPart> | undefined
  readonly maxSteps?: number | undefined
  readonly thinking?: LanguageModel.ModelRequest["thinking"]
  /** Live events (text deltas included), e.g. for stream-json output or a protocol client. */
  readonly onEvent?: ((event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  readonly beforeStep?: Effect.Effect<ReadonlyArray<Messages.Message>> | undefined
  readonly stopHook?: TurnOptions["stopHook"]
  /** Extra history placed before the persisted one (a fork's seed). */
  readonly seed?: ReadonlyArray<Messages.Message> | undefined
}

export const statusOfResult = (result: TurnResult): SessionStore.SessionStatus =>
  result.status === "completed" ? "completed" : result.status === "cancelled" ? "cancelled" : "failed"

/**
 * Runs one prompt against a persisted conversation: loads the history from the transcript,
 * runs the turn, appends every non-ephemeral event, and syncs the transcript to disk at the
 * turn boundary (also when the turn is cancelled).
 */
export const runPrompt = (options: RunPromptOptions): Effect.Effect<TurnResult, SessionError.SessionError> =>
  Effect.gen(function*() {
    const { records } = yield* options.transcript.read
    const history = [...(options.seed ?? []), ...historyFromRecords(records)]
    const turn = records.filter((r) => r.type === "turn-start").length
    const forward = options.onEvent
    const onEvent = (event: Events.AgentEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (!Events.isEphemeral(event)) {
          // A failed append must not kill the run; the turn-end sync reports persistent trouble.
          yield* options.transcript.append(event).pipe(Effect.ignore({ log: "Warn", message: `could not append to ${options.transcript.location}` }))
        }
        if (forward !== undefined) yield* forward(event)
      })
    return yield* runTurn({
      agent: options.agent,
      agentName: options.agentName,
      backend: options.backend,
      cwd: options.cwd,
      model: options.model,
      systemPrompt: options.systemPrompt,
      toolbox: options.toolbox,
      history,
      prompt: options.prompt,
      promptParts: options.promptParts,
      turn,
      maxSteps: options.maxSteps,
      thinking: options.thinking,
      onEvent,
      beforeStep: options.beforeStep,
      stopHook: options.stopHook
    }).pipe(Effect.ensuring(options.transcript.sync.pipe(Effect.ignore({ log: "Warn", message: `could not sync ${options.transcript.location}` }))))
  })
