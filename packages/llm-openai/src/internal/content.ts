/**
 * Content parts on the Chat Completions wire. User images become `image_url` parts (inline data
 * as a data URL). Tool messages carry text only, so a tool result's images are moved to one user
 * message right after the run of tool results (the model still sees them, in order). Files and
 * reasoning from other providers cannot go and are reported as warnings.
 */
import type { Messages } from "@dsh/core"

/** The provider name written on reasoning parts this adapter produces. */
export const REASONING_PROVIDER = "openai"

export type WireUserPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

const imageUrl = (part: { readonly mediaType: string; readonly data?: string | undefined; readonly url?: string | undefined }) =>
  part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : part.url

/** Parts as user-message parts; what cannot go is named in `warnings`. */
export const toUserParts = (parts: ReadonlyArray<Messages.ContentPart>, where: string, warnings: Array<string>): Array<WireUserPart> => {
  const out: Array<WireUserPart> = []
  for (const part of parts) {
    switch (part.type) {
      case "text":
        if (part.text !== "") out.push({ type: "text", text: part.text })
        break
      case "image": {
        const url = imageUrl(part)
        if (url === undefined) warnings.push(`an image without data or url in ${where} was dropped`)
        else out.push({ type: "image_url", image_url: { url } })
        break
      }
      case "file":
        warnings.push(`a file (${part.filename ?? part.mediaType}) in ${where} was dropped (Chat Completions takes images only)`)
    }
  }
  return out
}

/** The media of a tool result, moved to a user message: a label, then the images. */
export const movedResultParts = (message: Extract<Messages.Message, { role: "tool" }>, warnings: Array<string>): Array<WireUserPart> => {
  const media = (message.parts ?? []).filter((p) => p.type !== "text")
  if (media.length === 0) return []
  const parts = toUserParts(media, `the result of ${message.name}`, warnings)
  return parts.length === 0 ? [] : [{ type: "text", text: `[attachments of the ${message.name} result ${message.toolCallId}]` }, ...parts]
}

/** A warning when an assistant message carries reasoning of another provider (ours is never sent back either). */
export const foreignReasoningWarning = (message: Extract<Messages.Message, { role: "assistant" }>): string | undefined => {
  const foreign = (message.reasoning ?? []).filter((r) => r.provider !== REASONING_PROVIDER).length
  return foreign > 0 ? `${foreign} reasoning part(s) from another provider were not sent (Chat Completions takes no reasoning back)` : undefined
}
