import type { ContentPart, Message } from "@dsh/core"
import type { ToolSpec } from "@dsh/llm"
import { Effect } from "effect"
import { type Prompt, Tool, type Toolkit } from "effect/ai"
import { reasoningMetadata } from "./reasoning.ts"

const filePart = (part: Exclude<ContentPart, { type: "text" }>): Prompt.FilePartEncoded => ({
  type: "file",
  mediaType: part.mediaType,
  // effect/ai takes inline data as base64 text and remote data as a URL.
  data: part.data ?? new URL(part.url ?? ""),
  ...(part.type === "file" && part.filename !== undefined ? { fileName: part.filename } : {})
})

const contentPart = (part: ContentPart): Prompt.TextPartEncoded | Prompt.FilePartEncoded =>
  part.type === "text" ? { type: "text", text: part.text } : filePart(part)

/** Tool-call arguments are JSON text in dsh; effect/ai carries the parsed value (or the text if it is not JSON). */
const parseArguments = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const message = (m: Message): Prompt.MessageEncoded => {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content }
    case "user":
      return { role: "user", content: m.parts === undefined ? m.content : m.parts.map(contentPart) }
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(m.reasoning ?? []).map((r): Prompt.ReasoningPartEncoded => ({
            type: "reasoning",
            text: r.text,
            options: reasoningMetadata(r)
          })),
          ...(m.content === "" ? [] : [{ type: "text" as const, text: m.content }]),
          ...(m.toolCalls ?? []).map((c): Prompt.ToolCallPartEncoded => ({
            type: "tool-call",
            id: c.id,
            name: c.name,
            params: parseArguments(c.arguments),
            providerExecuted: false
          }))
        ]
      }
    case "tool":
      return {
        role: "tool",
        content: [{
          type: "tool-result",
          id: m.toolCallId,
          name: m.name,
          isFailure: m.isError === true,
          result: m.content,
          ...(m.parts === undefined ? {} : { modelOutput: m.parts.map(contentPart) })
        }]
      }
  }
}

/** dsh's conversation as effect/ai's encoded prompt (what `LanguageModel.streamText({ prompt })` takes). */
export const toPromptInput = (messages: ReadonlyArray<Message>): Array<Prompt.MessageEncoded> => messages.map(message)

/**
 * dsh's tool specs as an effect/ai toolkit of dynamic tools with their JSON Schemas. It has
 * no handlers: the bridge always disables tool-call resolution, because dsh runs tools itself.
 */
export const toToolkit = (specs: ReadonlyArray<ToolSpec>): Toolkit.WithHandler<Record<string, Tool.Any>> | undefined => {
  if (specs.length === 0) return undefined
  const tools: Record<string, Tool.Any> = {}
  for (const spec of specs) {
    tools[spec.name] = Tool.dynamic(spec.name, { description: spec.description, parameters: spec.parameters })
  }
  return {
    tools,
    handle: (name) => Effect.die(`@dsh/llm-effect-ai: tool "${String(name)}" must be run by dsh, not effect/ai`)
  }
}
