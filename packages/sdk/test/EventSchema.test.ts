import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { WireRecordSchema } from "../src/EventSchema.ts"

const decode = (value: unknown) => Schema.decodeUnknownSync(WireRecordSchema)(value)

describe("event schemas and content parts", () => {
  it("decodes a text-only message written before content parts, unchanged", () => {
    const old = { seq: 4, ts: "2026-11-20T10:00:00.030Z", type: "message", message: { role: "assistant", content: "hi", toolCalls: [{ id: "c", name: "Now", arguments: "{}" }] } }
    assert.deepStrictEqual<unknown>(decode(old), old)
  })

  it("decodes user parts, assistant reasoning, tool-result parts and reasoning tokens", () => {
    const records: Array<unknown> = [
      { seq: 1, ts: "t", type: "message", message: { role: "user", content: "see", parts: [{ type: "text", text: "see" }, { type: "image", mediaType: "image/png", data: "AA==" }, { type: "file", mediaType: "application/pdf", url: "https://x.test/a.pdf", filename: "a.pdf" }] } },
      { seq: 2, ts: "t", type: "message", message: { role: "assistant", content: "", reasoning: [{ type: "reasoning", text: "hm", provider: "anthropic", signature: "s", providerMetadata: { k: 1 } }] } },
      { seq: 3, ts: "t", type: "message", message: { role: "tool", toolCallId: "c", name: "Shot", content: "x", parts: [{ type: "image", mediaType: "image/png", url: "https://x.test/a.png" }] } },
      { seq: 4, ts: "t", type: "usage", model: "openai:o", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 1 } }
    ]
    for (const record of records) assert.deepStrictEqual<unknown>(decode(record), record)
  })

  it("refuses a part without its media type", () => {
    assert.throws(() => decode({ seq: 1, ts: "t", type: "message", message: { role: "user", content: "", parts: [{ type: "image", data: "AA==" }] } }))
  })
})
