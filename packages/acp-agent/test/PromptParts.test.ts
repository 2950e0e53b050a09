import { assert, describe, it } from "@effect/vitest"
import { promptParts } from "../src/internal/PromptParts.ts"

describe("ACP prompt parts", () => {
  it("a text-only prompt has no parts; an image prompt keeps its blocks in order", () => {
    assert.isUndefined(promptParts([{ type: "text", text: "hi" }]))
    assert.deepStrictEqual(promptParts([
      { type: "text", text: "what is this?" },
      { type: "image", mimeType: "image/png", data: "AAAA" }
    ]), [
      { type: "text", text: "what is this?" },
      { type: "image", mediaType: "image/png", data: "AAAA" }
    ])
  })
})
