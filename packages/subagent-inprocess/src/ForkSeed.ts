import type { Messages } from "@dsh/core"

/** Said in place of the result of a delegation call that is still in flight when forking. */
export const FORK_CALL_NOTE = "This task was handed to a fork of this conversation: you are that fork. Its result will be reported from the fork."

/** Told to the fork after the parent's history: the history is context, the task is new. */
export const FORK_NOTICE = "[fork notice] Everything above is your parent's conversation, copied for reference only. " +
  "You are a forked child agent: do not continue the parent's work or answer its earlier messages. " +
  "Work only on the task given below; your last message is the complete, self-contained result."

/**
 * The message without reasoning that `provider` did not produce: a provider accepts back only
 * its own reasoning (Anthropic checks the signature), so a fork on another one gets none of it.
 */
export const keepReasoningOf = (provider: string) => (message: Messages.Message): Messages.Message => {
  if (message.role !== "assistant" || message.reasoning === undefined) return message
  const kept = message.reasoning.filter((r) => r.provider === provider)
  if (kept.length === message.reasoning.length) return message
  const { reasoning: _dropped, ...rest } = message
  return (kept.length > 0 ? { ...rest, reasoning: kept } : rest) satisfies Messages.AssistantMessage
}

/**
 * The seed of a fork: the parent's conversation up to and including the message that
 * delegated, with every tool call of that message closed (not dropped) and nothing else
 * in flight, followed by the notice. With `provider` (the fork's model adapter), reasoning
 * parts of other providers are stripped.
 */
export const forkSeed = (history: ReadonlyArray<Messages.Message>, options: { readonly provider?: string | undefined } = {}): Array<Messages.Message> => {
  let cut = history.length
  // The in-flight turn ends at the last assistant message; anything after it (partial tool
  // results of sibling calls) is in-flight state and is not copied.
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]?.role === "assistant") {
      cut = i + 1
      break
    }
  }
  const provider = options.provider
  const prefix = provider === undefined ? history.slice(0, cut) : history.slice(0, cut).map(keepReasoningOf(provider))
  const last = prefix.at(-1)
  const closing: Array<Messages.ToolMessage> = last?.role === "assistant"
    ? (last.toolCalls ?? []).map((c) => ({ role: "tool", toolCallId: c.id, name: c.name, content: FORK_CALL_NOTE }))
    : []
  return [...prefix, ...closing, { role: "user", content: FORK_NOTICE }]
}
