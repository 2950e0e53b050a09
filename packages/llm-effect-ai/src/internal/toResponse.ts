import type { Messages, Usage } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import type { Response } from "effect/ai"
import { parseArguments } from "./json.ts"
import { reasoningMetadata } from "./reasoning.ts"

/** dsh usage as effect/ai's: cache reads and writes are part of the input total in both. */
export const toUsage = (usage: Usage.Usage): typeof Response.Usage.Encoded => {
  const read = usage.cacheReadTokens ?? 0
  const write = usage.cacheWriteTokens ?? 0
  const reasoning = usage.reasoningTokens ?? 0
  return {
    inputTokens: {
      total: usage.inputTokens,
      uncached: Math.max(0, usage.inputTokens - read - write),
      ...(read > 0 ? { cacheRead: read } : {}),
      ...(write > 0 ? { cacheWrite: write } : {})
    },
    outputTokens: {
      total: usage.outputTokens,
      ...(reasoning > 0 ? { reasoning, text: Math.max(0, usage.outputTokens - reasoning) } : {})
    }
  }
}

const toolCallPart = (call: Messages.ToolCall): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id: call.id,
  name: call.name,
  params: parseArguments(call.arguments),
  providerExecuted: false
})

const finishPart = (reason: LanguageModel.FinishReason, usage: Usage.Usage): Response.FinishPartEncoded => ({
  type: "finish",
  reason,
  usage: toUsage(usage)
})

/** A collected dsh response as effect/ai's non-streaming parts (reasoning, text, tool calls, finish). */
export const toResponseParts = (response: LanguageModel.ModelResponse): Array<Response.PartEncoded> => [
  ...(response.message.reasoning ?? []).map((r): Response.PartEncoded => ({ type: "reasoning", text: r.text, metadata: reasoningMetadata(r) })),
  ...(response.message.content === "" ? [] : [{ type: "text" as const, text: response.message.content }]),
  ...(response.message.toolCalls ?? []).map(toolCallPart),
  finishPart(response.finishReason, response.usage)
]

/**
 * A stateful mapper from dsh stream parts to effect/ai's encoded stream parts. effect/ai
 * brackets text and reasoning with start/end parts under an id; dsh streams bare deltas, so
 * the mapper opens a block at the first delta of each kind. A whole `reasoning` part closes
 * the streamed reasoning block with its metadata (or is sent as one block when no deltas came
 * first); tool calls and the finish close the text block. Warnings have no effect/ai part
 * (the caller logs them).
 */
export const makeStreamEncoder = () => {
  let counter = 0
  // The id of the open block of each kind, if one is open.
  const open: { text: string | undefined; reasoning: string | undefined } = { text: undefined, reasoning: undefined }

  const closeText = (): Array<Response.StreamPartEncoded> => {
    if (open.text === undefined) return []
    const id = open.text
    open.text = undefined
    return [{ type: "text-end", id }]
  }
  const closeAll = (): Array<Response.StreamPartEncoded> => {
    const parts = closeText()
    if (open.reasoning !== undefined) parts.push({ type: "reasoning-end", id: open.reasoning })
    open.reasoning = undefined
    return parts
  }
  /** A delta under the open block of its kind, opening one first if none is open. */
  const delta = (kind: "text" | "reasoning", text: string): Array<Response.StreamPartEncoded> => {
    const id = open[kind]
    if (id !== undefined) return [{ type: `${kind}-delta`, id, delta: text }]
    const opened = `${kind}-${counter++}`
    open[kind] = opened
    return [{ type: `${kind}-start`, id: opened }, { type: `${kind}-delta`, id: opened, delta: text }]
  }
  const reasoning = (part: Messages.ReasoningPart): Array<Response.StreamPartEncoded> => {
    const metadata = reasoningMetadata(part)
    if (open.reasoning !== undefined) {
      const id = open.reasoning
      open.reasoning = undefined
      return [{ type: "reasoning-end", id, metadata }]
    }
    const id = `reasoning-${counter++}`
    return [{ type: "reasoning-start", id }, { type: "reasoning-delta", id, delta: part.text }, { type: "reasoning-end", id, metadata }]
  }

  const push = (part: LanguageModel.StreamPart): Array<Response.StreamPartEncoded> => {
    switch (part.type) {
      case "text-delta":
        return delta("text", part.text)
      case "reasoning-delta":
        return delta("reasoning", part.text)
      case "reasoning":
        return reasoning(part.part)
      case "tool-call":
        return [...closeText(), toolCallPart(part.call)]
      case "finish":
        return [...closeAll(), finishPart(part.reason, part.usage)]
      case "warning":
        return []
    }
  }
  return { push, end: closeAll }
}
