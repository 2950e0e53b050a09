import type { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { Effect } from "effect"
import { type Prompt, Tool, type Toolkit } from "effect/ai"
import { parseArguments } from "./json.ts"
import { reasoningMetadata } from "./reasoning.ts"

/** Where effect/ai finds a media part: inline base64 text, or a URL; undefined when it has neither. */
const mediaData = (part: Messages.MediaPart): string | URL | undefined => {
  if (part.data !== undefined) return part.data
  return part.url !== undefined && URL.canParse(part.url) ? new URL(part.url) : undefined
}

/** The conversion collects what it had to leave out, for the stream's `warning` parts. */
type Warn = (message: string) => void

const contentParts = (parts: ReadonlyArray<Messages.ContentPart>, warn: Warn): Array<Prompt.TextPartEncoded | Prompt.FilePartEncoded> =>
  parts.flatMap((part): Array<Prompt.TextPartEncoded | Prompt.FilePartEncoded> => {
    if (part.type === "text") return [{ type: "text", text: part.text }]
    const data = mediaData(part)
    if (data === undefined) {
      warn(`left out ${part.type === "image" ? "an image" : "a file"} part (${part.mediaType}) with neither inline data nor a valid URL`)
      return []
    }
    return [{
      type: "file",
      mediaType: part.mediaType,
      data,
      ...(part.type === "file" && part.filename !== undefined ? { fileName: part.filename } : {})
    }]
  })

const message = (m: Messages.Message, warn: Warn): Prompt.MessageEncoded => {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content }
    case "user":
      return { role: "user", content: m.parts === undefined ? m.content : contentParts(m.parts, warn) }
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
          ...(m.parts === undefined ? {} : { modelOutput: contentParts(m.parts, warn) })
        }]
      }
  }
}

/**
 * dsh's conversation as effect/ai's encoded prompt (what `LanguageModel.streamText({ prompt })`
 * takes), with a warning for each part it could not send.
 */
export const toPromptInput = (
  messages: ReadonlyArray<Messages.Message>
): { readonly prompt: Array<Prompt.MessageEncoded>; readonly warnings: ReadonlyArray<string> } => {
  const warnings: Array<string> = []
  const prompt = messages.map((m) => message(m, (w) => warnings.push(w)))
  return { prompt, warnings }
}

/**
 * dsh's tool specs as an effect/ai toolkit of dynamic tools with their JSON Schemas. It has
 * no handlers: the bridge always disables tool-call resolution, because dsh runs tools itself.
 */
export const toToolkit = (specs: ReadonlyArray<LanguageModel.ToolSpec>): Toolkit.WithHandler<Record<string, Tool.Any>> | undefined => {
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
