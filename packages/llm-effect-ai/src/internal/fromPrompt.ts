import type { Messages } from "@dsh/core"
import type { LanguageModel as LlmLanguageModel } from "@dsh/llm"
import { Base64 } from "effect/encoding"
import { type LanguageModel, type Prompt, Tool } from "effect/ai"
import { argumentsText } from "./json.ts"
import { reasoningPart } from "./reasoning.ts"

const mediaPart = (part: Prompt.FilePart): Messages.ContentPart => {
  const where = part.data instanceof URL
    ? { url: part.data.href }
    : { data: typeof part.data === "string" ? part.data : Base64.encode(part.data) }
  return part.mediaType.startsWith("image/")
    ? { type: "image", mediaType: part.mediaType, ...where }
    : { type: "file", mediaType: part.mediaType, ...where, ...(part.fileName === undefined ? {} : { filename: part.fileName }) }
}

const contentPart = (part: Prompt.TextPart | Prompt.FilePart): Messages.ContentPart =>
  part.type === "text" ? { type: "text", text: part.text } : mediaPart(part)

const textOf = (parts: ReadonlyArray<Messages.ContentPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")

/** Tool results carry any JSON in effect/ai; dsh's are text. */
const resultText = (result: unknown): string => (typeof result === "string" ? result : JSON.stringify(result) ?? "")

const messages = (message: Prompt.Message, provider: string): ReadonlyArray<Messages.Message> => {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }]
    case "user": {
      const parts = message.content.map(contentPart)
      // Text-only messages stay plain: text-only readers of the transcript see the same message.
      return parts.every((p) => p.type === "text")
        ? [{ role: "user", content: textOf(parts) }]
        : [{ role: "user", content: textOf(parts), parts }]
    }
    case "assistant": {
      let text = ""
      const reasoning: Array<Messages.ReasoningPart> = []
      const toolCalls: Array<Messages.ToolCall> = []
      for (const part of message.content) {
        if (part.type === "text") text += part.text
        else if (part.type === "reasoning") reasoning.push(reasoningPart(part.text, part.options, provider))
        else if (part.type === "tool-call" && !part.providerExecuted) {
          toolCalls.push({ id: part.id, name: part.name, arguments: argumentsText(part.params) })
        }
      }
      return [{
        role: "assistant",
        content: text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(reasoning.length > 0 ? { reasoning } : {})
      }]
    }
    case "tool":
      return message.content.flatMap((part): ReadonlyArray<Messages.Message> =>
        part.type !== "tool-result" ? [] : [{
          role: "tool",
          toolCallId: part.id,
          name: part.name,
          content: part.modelOutput === undefined ? resultText(part.result) : textOf(part.modelOutput.map(contentPart)),
          ...(part.isFailure ? { isError: true } : {}),
          ...(part.modelOutput !== undefined && part.modelOutput.some((p) => p.type === "file")
            ? { parts: part.modelOutput.map(contentPart) }
            : {})
        }]
      )
  }
}

const toolSpec = (tool: Tool.Any): LlmLanguageModel.ToolSpec => ({
  name: tool.name,
  description: Tool.getDescription(tool) ?? "",
  parameters: Tool.getJsonSchema(tool) as Readonly<Record<string, unknown>>
})

/**
 * What effect/ai asks a provider for, as a dsh request. dsh has no tool choice: `none` sends
 * no tools (a `oneOf` subset was already applied by effect/ai); `required` and a named tool
 * are offered as plain tools. Provider-defined tools (web search…) cannot run on a dsh model
 * and are left out.
 */
export const toModelRequest = (options: LanguageModel.ProviderOptions, provider: string): LlmLanguageModel.ModelRequest => ({
  messages: options.prompt.content.flatMap((m) => messages(m, provider)),
  tools: options.toolChoice === "none" ? [] : options.tools.filter((t) => !Tool.isProviderDefined(t)).map(toolSpec)
})
