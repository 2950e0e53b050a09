/**
 * The chat vocabulary shared by models, tools, the turn loop and persistence.
 * Tool-call arguments stay as the raw JSON text the model produced, so that a malformed
 * call can be reported back to the model instead of being lost in a parse error.
 */
/** Plain text inside a message that carries parts. */
export interface TextPart {
  readonly type: "text"
  readonly text: string
}

/** An image: inline base64 `data` or a `url`, with its media type (e.g. `image/png`). */
export interface ImagePart {
  readonly type: "image"
  readonly mediaType: string
  readonly data?: string | undefined
  readonly url?: string | undefined
}

/** Any other file (a PDF, audio…): inline base64 `data` or a `url`, with its media type. */
export interface FilePart {
  readonly type: "file"
  readonly mediaType: string
  readonly data?: string | undefined
  readonly url?: string | undefined
  readonly filename?: string | undefined
}

/**
 * The model's reasoning, kept so it can go back to the provider that made it (Anthropic's
 * thinking blocks must return with their signature through a tool loop). `provider` names the
 * adapter that produced it; `signature`, `redactedData` and `providerMetadata` are opaque.
 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
  readonly provider?: string | undefined
  readonly signature?: string | undefined
  readonly redactedData?: string | undefined
  readonly providerMetadata?: Readonly<Record<string, unknown>> | undefined
}

export type MediaPart = ImagePart | FilePart
export type ContentPart = TextPart | MediaPart

export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface SystemMessage {
  readonly role: "system"
  readonly content: string
}

export interface UserMessage {
  readonly role: "user"
  readonly content: string
  /** When present, the message's content in order; `content` then holds its text parts joined, for text-only readers. */
  readonly parts?: ReadonlyArray<ContentPart> | undefined
}

export interface AssistantMessage {
  readonly role: "assistant"
  readonly content: string
  readonly toolCalls?: ReadonlyArray<ToolCall> | undefined
  /** Reasoning that came before the text and tool calls, in order. */
  readonly reasoning?: ReadonlyArray<ReasoningPart> | undefined
}

export interface ToolMessage {
  readonly role: "tool"
  readonly toolCallId: string
  readonly name: string
  readonly content: string
  readonly isError?: boolean | undefined
  /** A result with images or files; `content` holds its text. */
  readonly parts?: ReadonlyArray<ContentPart> | undefined
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export const userMessage = (content: string): UserMessage => ({ role: "user", content })
export const systemMessage = (content: string): SystemMessage => ({ role: "system", content })
