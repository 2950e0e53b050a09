import { Usage } from "@dsh/core"
import { type LanguageModel, LlmError } from "@dsh/llm"
import { Effect } from "effect"
import { AiError, type Response } from "effect/ai"
import { toLlmError } from "./errors.ts"
import { argumentsText } from "./json.ts"
import { reasoningPart } from "./reasoning.ts"

/** What a stream with tool-call resolution disabled and validation deferred yields. */
export type AnyStreamPart = Response.StreamPart<Record<string, never>, "deferred">

const finishReason = (reason: Response.FinishReason): LanguageModel.FinishReason => {
  switch (reason) {
    case "stop":
    case "length":
    case "content-filter":
    case "tool-calls":
      return reason
    default:
      return "other"
  }
}

/** effect/ai usage as dsh's: totals fall back to the sums of their parts; zero extras are left out. */
export const fromUsage = (usage: Response.Usage): Usage.Usage => {
  const { inputTokens: i, outputTokens: o } = usage
  const input = i.total ?? (i.uncached ?? 0) + (i.cacheRead ?? 0) + (i.cacheWrite ?? 0)
  const output = o.total ?? (o.text ?? 0) + (o.reasoning ?? 0)
  const base = Usage.make(input, output, { read: i.cacheRead ?? 0, write: i.cacheWrite ?? 0 })
  return (o.reasoning ?? 0) > 0 ? { ...base, reasoningTokens: o.reasoning } : base
}

const mergeMetadata = (a: unknown, b: unknown): Record<string, unknown> => ({
  ...(typeof a === "object" && a !== null ? a : {}),
  ...(typeof b === "object" && b !== null ? b : {})
})

/**
 * A stateful mapper from effect/ai stream parts to dsh's: reasoning is streamed as deltas and
 * kept whole (with the metadata of its start, deltas and end) for `reasoning`; tool-call
 * arguments keep the raw JSON text the provider streamed, or are re-encoded when it sent none.
 * One mapper per stream.
 */
export const makePartMapper = (provider: string) => {
  const reasoning = new Map<string, { text: string; metadata: Record<string, unknown> }>()
  const params = new Map<string, string>()
  const fail = (detail: string) => new LlmError.LlmError({ reason: "BadResponse", provider, detail, retryable: false })

  const push = (part: AnyStreamPart): Effect.Effect<ReadonlyArray<LanguageModel.StreamPart>, LlmError.LlmError> => {
    const out = map(part)
    return out instanceof LlmError.LlmError ? Effect.fail(out) : Effect.succeed(out)
  }
  const map = (part: AnyStreamPart): ReadonlyArray<LanguageModel.StreamPart> | LlmError.LlmError => {
    switch (part.type) {
      case "text-delta":
        return part.delta === "" ? [] : [{ type: "text-delta", text: part.delta }]
      case "reasoning-start":
        reasoning.set(part.id, { text: "", metadata: { ...part.metadata } })
        return []
      case "reasoning-delta": {
        const open = reasoning.get(part.id) ?? { text: "", metadata: {} }
        reasoning.set(part.id, { text: open.text + part.delta, metadata: mergeMetadata(open.metadata, part.metadata) })
        return part.delta === "" ? [] : [{ type: "reasoning-delta", text: part.delta }]
      }
      case "reasoning-end": {
        const open = reasoning.get(part.id) ?? { text: "", metadata: {} }
        reasoning.delete(part.id)
        return [{ type: "reasoning", part: reasoningPart(open.text, mergeMetadata(open.metadata, part.metadata), provider) }]
      }
      case "tool-params-start":
        params.set(part.id, "")
        return []
      case "tool-params-delta":
        params.set(part.id, (params.get(part.id) ?? "") + part.delta)
        return []
      case "tool-call": {
        // A provider-executed call (web search…) already ran on the provider's side: dsh has nothing to run.
        if (part.providerExecuted) return []
        const raw = params.get(part.id)
        params.delete(part.id)
        const args = raw !== undefined && raw !== "" ? raw : argumentsText(part.params)
        return [{ type: "tool-call", call: { id: part.id, name: part.name, arguments: args } }]
      }
      case "file":
        return [{ type: "warning", message: `${provider}: dropped a generated ${part.mediaType} file (dsh assistant messages carry no files)` }]
      case "finish":
        return [{ type: "finish", reason: finishReason(part.reason), usage: fromUsage(part.usage) }]
      case "error":
        return AiError.isAiError(part.error) ? toLlmError(provider, part.error) : fail(`the stream reported an error: ${String(part.error)}`)
      default:
        return []
    }
  }
  return { push }
}
