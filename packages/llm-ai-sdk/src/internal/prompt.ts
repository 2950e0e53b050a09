import type { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import type {
  LanguageModelV2CallOptions,
  LanguageModelV3CallOptions,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3ToolResultOutput,
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4ToolResultOutput
} from "@ai-sdk/provider"

export type SpecVersion = "v2" | "v3" | "v4"

/** What the prompt builder needs besides the request. */
export interface PromptContext {
  readonly version: SpecVersion
  /** The `ReasoningPart.provider` this model writes: only its own reasoning goes back to it. */
  readonly provider: string
  readonly maxOutputTokens?: number | undefined
  readonly abortSignal: AbortSignal
}

export interface BuiltCall {
  readonly options: LanguageModelV4CallOptions | LanguageModelV3CallOptions | LanguageModelV2CallOptions
  /** What could not be sent (e.g. an image in a tool result to a V2 model). */
  readonly warnings: ReadonlyArray<string>
}

type JsonObject = NonNullable<LanguageModelV4FilePart["providerOptions"]>[string]

/** Tool-call arguments go to the prompt as a value; text that is not JSON goes as it is. */
const parseArguments = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const fileV4 = (part: Exclude<Messages.ContentPart, { type: "text" }>): LanguageModelV4FilePart => ({
  type: "file",
  mediaType: part.mediaType,
  data: part.url !== undefined ? { type: "url", url: new URL(part.url) } : { type: "data", data: part.data ?? "" },
  ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {})
})

const fileV3 = (part: Exclude<Messages.ContentPart, { type: "text" }>): LanguageModelV3FilePart => ({
  type: "file",
  mediaType: part.mediaType,
  data: part.url !== undefined ? new URL(part.url) : part.data ?? "",
  ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {})
})

const reasoningBack = (parts: ReadonlyArray<Messages.ReasoningPart> | undefined, provider: string) =>
  (parts ?? [])
    .filter((r) => r.provider === provider)
    .map((r) => ({
      type: "reasoning" as const,
      text: r.text,
      ...(r.providerMetadata === undefined ? {} : { providerOptions: r.providerMetadata as Record<string, JsonObject> })
    }))

const toolOutputV4 = (m: Messages.ToolMessage): LanguageModelV4ToolResultOutput => {
  if (m.parts === undefined || !m.parts.some((p) => p.type !== "text")) {
    return m.isError === true ? { type: "error-text", value: m.content } : { type: "text", value: m.content }
  }
  return {
    type: "content",
    value: m.parts.map((p) =>
      p.type === "text" ? { type: "text" as const, text: p.text } : { type: "file" as const, data: fileV4(p).data, mediaType: p.mediaType }
    )
  }
}

const toolOutputV3 = (m: Messages.ToolMessage, warnings: Array<string>, version: SpecVersion): LanguageModelV3ToolResultOutput => {
  if (m.parts === undefined || !m.parts.some((p) => p.type !== "text") || version === "v2") {
    if (m.parts?.some((p) => p.type !== "text") === true) warnings.push(`the tool result of ${m.name} has files a ${version} model cannot take: sent as text`)
    return m.isError === true ? { type: "error-text", value: m.content } : { type: "text", value: m.content }
  }
  return {
    type: "content",
    value: m.parts.map((p) =>
      p.type === "text"
        ? { type: "text" as const, text: p.text }
        : p.url !== undefined
        ? { type: "file-url" as const, url: p.url }
        : { type: "file-data" as const, data: p.data ?? "", mediaType: p.mediaType }
    )
  }
}

/** dsh messages → an AI SDK prompt of the model's spec version; consecutive tool results share one tool message. */
const toPrompt = (messages: ReadonlyArray<Messages.Message>, context: PromptContext, warnings: Array<string>) => {
  const v4 = context.version === "v4"
  const out: Array<LanguageModelV4Message | LanguageModelV3Message> = []
  for (const m of messages) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content })
        break
      case "user": {
        const parts: ReadonlyArray<Messages.ContentPart> = m.parts ?? [{ type: "text", text: m.content }]
        const content = parts.map((p) => p.type === "text" ? { type: "text" as const, text: p.text } : v4 ? fileV4(p) : fileV3(p))
        out.push({ role: "user", content } as LanguageModelV4Message)
        break
      }
      case "assistant": {
        const content = [
          ...reasoningBack(m.reasoning, context.provider),
          ...(m.content === "" ? [] : [{ type: "text" as const, text: m.content }]),
          ...(m.toolCalls ?? []).map((c) => ({
            type: "tool-call" as const,
            toolCallId: c.id,
            toolName: c.name,
            input: parseArguments(c.arguments)
          }))
        ]
        out.push({ role: "assistant", content })
        break
      }
      case "tool": {
        const part = {
          type: "tool-result" as const,
          toolCallId: m.toolCallId,
          toolName: m.name,
          output: v4 ? toolOutputV4(m) : toolOutputV3(m, warnings, context.version)
        }
        const last = out.at(-1)
        if (last?.role === "tool") (last.content as Array<typeof part>).push(part)
        else out.push({ role: "tool", content: [part] } as LanguageModelV4Message)
        break
      }
    }
  }
  return out
}

const REASONING = { off: "none", low: "low", medium: "medium", high: "high" } as const

/** A dsh request as the call options of the model's spec version, aborted through `abortSignal`. */
export const toCallOptions = (request: LanguageModel.ModelRequest, context: PromptContext): BuiltCall => {
  const warnings: Array<string> = []
  const prompt = toPrompt(request.messages, context, warnings)
  const maxOutputTokens = context.maxOutputTokens ?? request.maxOutputTokens
  const options = {
    prompt,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.tools.length === 0 ? {} : {
      tools: request.tools.map((t) => ({
        type: "function" as const,
        name: t.name,
        description: t.description,
        inputSchema: t.parameters as Record<string, never>
      })),
      toolChoice: { type: "auto" as const }
    }),
    // Only V4 has a provider-neutral reasoning setting; older specs leave it to providerOptions.
    ...(context.version === "v4" && request.thinking !== undefined ? { reasoning: REASONING[request.thinking] } : {}),
    abortSignal: context.abortSignal
  }
  return { options: options as LanguageModelV4CallOptions, warnings }
}
