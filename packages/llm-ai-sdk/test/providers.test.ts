import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Messages } from "@dsh/core"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { FromAiSdk } from "../src/index.ts"

/** A local Anthropic Messages endpoint that answers every request with a thinking block (signed) and text. */
const thinkingServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const bodies: Array<unknown> = []
    const event = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`
    const server = createServer((req, res) => {
      let text = ""
      req.on("data", (c: Buffer) => (text += c.toString()))
      req.on("end", () => {
        bodies.push(JSON.parse(text))
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end([
          event("message_start", {
            type: "message_start",
            message: {
              id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 }
            }
          }),
          event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
          event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me think." } }),
          event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "SIG123" } }),
          event("content_block_stop", { type: "content_block_stop", index: 0 }),
          event("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
          event("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi there" } }),
          event("content_block_stop", { type: "content_block_stop", index: 1 }),
          event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } }),
          event("message_stop", { type: "message_stop" })
        ].join(""))
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, server }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((r) => server.close(() => r())))
)

describe("fromAiSdk over real providers", () => {
  it.live("@ai-sdk/anthropic: a signed thinking block comes back as reasoning with its metadata and goes out again with its signature", () =>
    Effect.gen(function*() {
      const { bodies, url } = yield* thinkingServer
      const model = FromAiSdk.fromAiSdk(createAnthropic({ baseURL: url, apiKey: "sk-ant" })("claude-sonnet-4-5"), { provider: "claude" })
      const first = yield* model.generate({ messages: [Messages.userMessage("hi")], tools: [], thinking: "high" })
      assert.strictEqual(first.message.content, "Hi there")
      const reasoning = first.message.reasoning?.[0]
      assert.strictEqual(reasoning?.text, "Let me think.")
      assert.strictEqual(reasoning?.provider, "claude")
      assert.deepStrictEqual((reasoning?.providerMetadata as { anthropic?: { signature?: string } } | undefined)?.anthropic?.signature, "SIG123")
      // Anthropic counts input without the cache: dsh's inputTokens holds every input token.
      assert.deepStrictEqual(first.usage, { inputTokens: 16, outputTokens: 7, totalTokens: 23, cacheReadTokens: 4, cacheWriteTokens: 2 })
      yield* model.generate({ messages: [Messages.userMessage("hi"), first.message, Messages.userMessage("and?")], tools: [] })
      const sent = bodies[1] as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }
      assert.deepStrictEqual(sent.messages[1]?.content[0], { type: "thinking", thinking: "Let me think.", signature: "SIG123" })
    }))

  it.live("@ai-sdk/openai-compatible: an image in a user message is sent as image_url", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => FakeOpenAIServer.startFakeOpenAIServer({ replies: [{ text: "a cat", usage: { input: 9, output: 2 } }] })),
        (s) => Effect.promise(() => s.close())
      )
      const model = FromAiSdk.fromAiSdk(createOpenAICompatible({ name: "local", baseURL: server.url, apiKey: "k", includeUsage: true })("vision-1"))
      const answer = yield* model.generate({
        messages: [{ role: "user", content: "what is it?", parts: [{ type: "text", text: "what is it?" }, { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }] }],
        tools: []
      })
      assert.strictEqual(answer.message.content, "a cat")
      assert.deepStrictEqual(answer.usage, { inputTokens: 9, outputTokens: 2, totalTokens: 11 })
      const body = server.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> }
      assert.deepStrictEqual(body.messages[0]?.content, [
        { type: "text", text: "what is it?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }
      ])
    }))
})
