/**
 * The Anthropic Messages wire format: mapping a `ModelRequest` to a request body (what it
 * could not send becomes warnings). The streamed answer is read in `events.ts`.
 */
import type { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { Predicate } from "effect"
import { partsToBlocks, reasoningToBlocks, type WireMediaBlock, type WireThinkingBlock } from "./content.ts"

/** The adapter's registry name, also used as `LlmError.provider`. */
export const PROVIDER = "anthropic"

/** Used when neither the config nor the request caps the answer; Anthropic requires a value. */
export const DEFAULT_MAX_TOKENS = 8192

export type WireContentBlock =
  | WireMediaBlock
  | WireThinkingBlock
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | {
    readonly type: "tool_result"
    readonly tool_use_id: string
    readonly content: string | ReadonlyArray<WireMediaBlock>
    readonly is_error?: true
  }

export interface WireMessage {
  readonly role: "user" | "assistant"
  readonly content: string | ReadonlyArray<WireContentBlock>
}

export interface WireTool {
  readonly name: string
  readonly description: string
  readonly input_schema: Readonly<Record<string, unknown>>
}

/** The body POSTed to `/v1/messages`. */
export interface WireRequest {
  readonly model: string
  readonly max_tokens: number
  readonly messages: ReadonlyArray<WireMessage>
  readonly stream: true
  readonly system?: string
  readonly tools?: ReadonlyArray<WireTool>
  readonly temperature?: number
  readonly thinking?: { readonly type: "enabled"; readonly budget_tokens: number }
}

/** Thinking budgets per effort; clamped below `max_tokens` and dropped under Anthropic's 1024 minimum. */
export const THINKING_BUDGET = { low: 2048, medium: 8192, high: 24576 } as const

const parseInput = (args: string): unknown => {
  try {
    const parsed = JSON.parse(args) as unknown
    return Predicate.isObject(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

const toolResult = (message: Messages.ToolMessage, warnings: Array<string>): WireContentBlock => {
  // A result with images or PDFs goes as blocks; a text-only one stays a plain string.
  const media = message.parts?.some((p) => p.type !== "text") === true
  const blocks = media ? partsToBlocks(message.parts ?? [], `the result of ${message.name}`, warnings) : []
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId,
    content: media && blocks.length > 0 ? blocks : message.content,
    ...(message.isError === true ? { is_error: true as const } : {})
  }
}

/** Chat messages to Anthropic turns: system text goes top-level, consecutive tool results share one user turn. */
export const toWireMessages = (
  messages: ReadonlyArray<Messages.Message>
): { readonly system: string | undefined; readonly messages: Array<WireMessage>; readonly warnings: Array<string> } => {
  const system: Array<string> = []
  const out: Array<WireMessage> = []
  const warnings: Array<string> = []
  let results: Array<WireContentBlock> | undefined
  for (const message of messages) {
    if (message.role !== "tool") results = undefined
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user": {
        const blocks = message.parts === undefined ? [] : partsToBlocks(message.parts, "a user message", warnings)
        out.push({ role: "user", content: blocks.length > 0 ? blocks : message.content })
        break
      }
      case "assistant": {
        // Thinking comes first, as Anthropic produced it: a tool loop continues only after it.
        const blocks: Array<WireContentBlock> = reasoningToBlocks(message.reasoning ?? [], warnings)
        if (message.content !== "") blocks.push({ type: "text", text: message.content })
        for (const call of message.toolCalls ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) })
        }
        // Anthropic rejects empty assistant turns; an empty one carries nothing anyway.
        if (blocks.length > 0) out.push({ role: "assistant", content: blocks })
        break
      }
      case "tool":
        if (results === undefined) {
          results = []
          out.push({ role: "user", content: results })
        }
        results.push(toolResult(message, warnings))
    }
  }
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages: out, warnings }
}

const isThinking = (block: WireContentBlock): boolean => block.type === "thinking" || block.type === "redacted_thinking"

/** The messages without thinking blocks; assistant turns left empty are dropped (the API rejects them). */
const withoutThinking = (messages: ReadonlyArray<WireMessage>): Array<WireMessage> =>
  messages.flatMap((m) => {
    if (m.role !== "assistant" || typeof m.content === "string" || !m.content.some(isThinking)) return [m]
    const content = m.content.filter((b) => !isThinking(b))
    return content.length > 0 ? [{ ...m, content }] : []
  })

const hasThinking = (message: WireMessage | undefined): boolean =>
  message !== undefined && typeof message.content !== "string" &&
  message.content.some(isThinking)

/** The body, and a warning for each part or setting that could not be sent. */
export const planRequest = (
  model: string,
  request: LanguageModel.ModelRequest,
  options: { readonly maxOutputTokens?: number | undefined } = {}
): { readonly body: WireRequest; readonly warnings: ReadonlyArray<string> } => {
  const maxTokens = options.maxOutputTokens ?? request.maxOutputTokens ?? DEFAULT_MAX_TOKENS
  const { messages, system, warnings } = toWireMessages(request.messages)
  const effort = request.thinking
  // Anthropic refuses a tool loop that continues with thinking on when the assistant turn that
  // opened it has no thinking block: so mid-loop, thinking stays on only if its blocks came back
  // (they do when this adapter produced them; not in transcripts written before they were kept).
  const loopWithoutThinking = request.messages.at(-1)?.role === "tool" &&
    !hasThinking(messages.findLast((m) => m.role === "assistant"))
  const budget = effort === undefined || effort === "off" || loopWithoutThinking
    ? 0
    : Math.min(THINKING_BUDGET[effort], maxTokens - 1024)
  const thinking = budget >= 1024
  const body: WireRequest = {
    model,
    max_tokens: maxTokens,
    // With thinking off the blocks are left out: a plain conversation, as before they were kept.
    messages: thinking ? messages : withoutThinking(messages),
    stream: true,
    ...(system !== undefined ? { system } : {}),
    ...(request.tools.length > 0
      ? { tools: request.tools.map((t): WireTool => ({ name: t.name, description: t.description, input_schema: t.parameters })) }
      : {}),
    ...(thinking ? { thinking: { type: "enabled", budget_tokens: budget } } : {}),
    // Anthropic does not accept a temperature together with thinking.
    ...(request.temperature !== undefined && !thinking ? { temperature: request.temperature } : {})
  }
  return { body, warnings }
}
