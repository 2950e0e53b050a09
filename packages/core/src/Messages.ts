/**
 * The chat vocabulary shared by models, tools, the turn loop and persistence.
 * Tool-call arguments stay as the raw JSON text the model produced, so that a malformed
 * call can be reported back to the model instead of being lost in a parse error.
 */
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
}

export interface AssistantMessage {
  readonly role: "assistant"
  readonly content: string
  readonly toolCalls?: ReadonlyArray<ToolCall> | undefined
}

export interface ToolMessage {
  readonly role: "tool"
  readonly toolCallId: string
  readonly name: string
  readonly content: string
  readonly isError?: boolean | undefined
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export const userMessage = (content: string): UserMessage => ({ role: "user", content })
export const systemMessage = (content: string): SystemMessage => ({ role: "system", content })
