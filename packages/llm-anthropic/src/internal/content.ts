/**
 * Content parts to Anthropic blocks, and what cannot go: images and PDFs become `image` and
 * `document` blocks, other files are dropped; reasoning goes back only as this provider's
 * own signed `thinking` / `redacted_thinking` blocks. Every drop is a warning, never silent.
 */
import type { Messages } from "@dsh/core"

/** The provider name written on reasoning parts this adapter produces. */
export const REASONING_PROVIDER = "anthropic"

type Source =
  | { readonly type: "base64"; readonly media_type: string; readonly data: string }
  | { readonly type: "url"; readonly url: string }

export type WireMediaBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly source: Source }
  | { readonly type: "document"; readonly source: Source; readonly title?: string }

export type WireThinkingBlock =
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }

/** The image types the Messages API takes. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

const sourceOf = (part: { readonly mediaType: string; readonly data?: string | undefined; readonly url?: string | undefined }): Source | undefined =>
  part.data !== undefined
    ? { type: "base64", media_type: part.mediaType, data: part.data }
    : part.url !== undefined
    ? { type: "url", url: part.url }
    : undefined

/** One part as a block, or the reason it was dropped. */
export const partToBlock = (part: Messages.ContentPart, where: string): WireMediaBlock | string => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "image": {
      const source = sourceOf(part)
      if (source === undefined) return `an image without data or url in ${where} was dropped`
      if (!IMAGE_TYPES.has(part.mediaType)) return `an image of type ${part.mediaType} in ${where} was dropped (Anthropic takes jpeg, png, gif, webp)`
      return { type: "image", source }
    }
    case "file": {
      const source = sourceOf(part)
      if (part.mediaType !== "application/pdf" || source === undefined) {
        return `a file (${part.filename ?? part.mediaType}) in ${where} was dropped (Anthropic takes PDF documents only)`
      }
      return { type: "document", source, ...(part.filename !== undefined ? { title: part.filename } : {}) }
    }
  }
}

/** Parts as blocks; empty text parts are skipped (Anthropic rejects empty text blocks). */
export const partsToBlocks = (
  parts: ReadonlyArray<Messages.ContentPart>,
  where: string,
  warnings: Array<string>
): Array<WireMediaBlock> => {
  const blocks: Array<WireMediaBlock> = []
  for (const part of parts) {
    if (part.type === "text" && part.text === "") continue
    const block = partToBlock(part, where)
    if (typeof block === "string") warnings.push(block)
    else blocks.push(block)
  }
  return blocks
}

/**
 * Reasoning as thinking blocks. Anthropic checks each signature, so only our own signed
 * blocks can go back; reasoning from another provider, or unsigned, is left out.
 */
export const reasoningToBlocks = (reasoning: ReadonlyArray<Messages.ReasoningPart>, warnings: Array<string>): Array<WireThinkingBlock> => {
  const blocks: Array<WireThinkingBlock> = []
  let foreign = 0
  for (const part of reasoning) {
    if (part.provider !== REASONING_PROVIDER) foreign++
    else if (part.redactedData !== undefined) blocks.push({ type: "redacted_thinking", data: part.redactedData })
    else if (part.signature !== undefined) blocks.push({ type: "thinking", thinking: part.text, signature: part.signature })
    else foreign++
  }
  if (foreign > 0) warnings.push(`${foreign} reasoning part(s) not produced by Anthropic (or unsigned) were not sent back`)
  return blocks
}
