import { type Messages, Usage } from "@dsh/core"
import { Effect, Stream } from "effect"
import type { LlmError } from "./LlmError.ts"

/** What the model is told about a tool: its parameters as a JSON Schema object. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface ModelRequest {
  readonly messages: ReadonlyArray<Messages.Message>
  readonly tools: ReadonlyArray<ToolSpec>
  readonly maxOutputTokens?: number | undefined
  readonly temperature?: number | undefined
  /** Provider-neutral reasoning effort; adapters map it or ignore it. */
  readonly thinking?: "off" | "low" | "medium" | "high" | undefined
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "other"

/** One piece of a streamed answer. Tool calls arrive whole, already assembled from deltas. */
export type StreamPart =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "tool-call"; readonly call: Messages.ToolCall }
  | { readonly type: "finish"; readonly reason: FinishReason; readonly usage: Usage.Usage }
  /** Reasoning text as it streams (for live display); the whole part follows as `reasoning`. */
  | { readonly type: "reasoning-delta"; readonly text: string }
  /** One finished reasoning part, with the provider's signature or metadata. */
  | { readonly type: "reasoning"; readonly part: Messages.ReasoningPart }
  /** Something the adapter could not send or keep (e.g. an image the wire does not take). */
  | { readonly type: "warning"; readonly message: string }

export interface ModelResponse {
  readonly message: Messages.AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: Usage.Usage
  readonly warnings?: ReadonlyArray<string> | undefined
}

/**
 * The LLM seam. An adapter supplies `stream`; `generate` is derived from it.
 * Interrupting the stream aborts the underlying HTTP request.
 */
export interface LanguageModelShape {
  /** The adapter's registry name, e.g. `openai`. */
  readonly provider: string
  /** The model id the adapter sends, e.g. `gpt-4.1-mini`. */
  readonly model: string
  readonly stream: (request: ModelRequest) => Stream.Stream<StreamPart, LlmError>
  readonly generate: (request: ModelRequest) => Effect.Effect<ModelResponse, LlmError>
}


/** Folds a part stream into one response; a stream without `finish` counts as a clean stop. */
export const collectResponse = <E, R>(parts: Stream.Stream<StreamPart, E, R>): Effect.Effect<ModelResponse, E, R> =>
  Stream.runFold(
    parts,
    () => ({
      text: "",
      calls: [] as Array<Messages.ToolCall>,
      reasoning: [] as Array<Messages.ReasoningPart>,
      warnings: [] as Array<string>,
      reason: "stop" as FinishReason,
      usage: Usage.emptyUsage
    }),
    (acc, part) => {
      switch (part.type) {
        case "text-delta":
          acc.text += part.text
          break
        case "tool-call":
          acc.calls.push(part.call)
          break
        case "reasoning":
          acc.reasoning.push(part.part)
          break
        case "warning":
          acc.warnings.push(part.message)
          break
        case "reasoning-delta":
          break
        case "finish":
          acc.reason = part.reason
          acc.usage = part.usage
          break
      }
      return acc
    }
  ).pipe(Effect.map((acc): ModelResponse => ({
    message: {
      role: "assistant",
      content: acc.text,
      ...(acc.calls.length > 0 ? { toolCalls: acc.calls } : {}),
      ...(acc.reasoning.length > 0 ? { reasoning: acc.reasoning } : {})
    },
    finishReason: acc.calls.length > 0 && acc.reason === "stop" ? "tool-calls" : acc.reason,
    usage: acc.usage,
    ...(acc.warnings.length > 0 ? { warnings: acc.warnings } : {})
  })))

/** Builds a model from its one primitive, `stream`. */
export const make = (options: {
  readonly provider: string
  readonly model: string
  readonly stream: (request: ModelRequest) => Stream.Stream<StreamPart, LlmError>
}): LanguageModelShape => ({
  provider: options.provider,
  model: options.model,
  stream: options.stream,
  generate: (request) => collectResponse(options.stream(request))
})
