import type * as acp from "@agentclientprotocol/sdk"
import type { Messages } from "@dsh/core"
import { promptText } from "./Updates.ts"

/**
 * An ACP prompt as content parts, when it carries images: text blocks (and resources, as
 * `promptText` renders them) stay text, image blocks become image parts. `undefined` for a
 * text-only prompt, so those keep the plain-text path. Audio is not offered (capability off).
 */
export const promptParts = (blocks: ReadonlyArray<acp.ContentBlock>): Array<Messages.ContentPart> | undefined => {
  if (!blocks.some((b) => b.type === "image")) return undefined
  return blocks.flatMap((b): Array<Messages.ContentPart> => {
    if (b.type === "image") return [{ type: "image", mediaType: b.mimeType, data: b.data, ...(b.uri != null ? { url: b.uri } : {}) }]
    const text = promptText([b])
    return text === "" ? [] : [{ type: "text", text }]
  })
}
