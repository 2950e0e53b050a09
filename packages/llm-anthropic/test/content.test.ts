import { Messages } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { AnthropicAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { FakeAnthropicServer } from "../src/testing.ts"

const fakeServer = (options: FakeAnthropicServer.FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeAnthropicServer.startFakeAnthropicServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string) =>
  AnthropicAdapter.AnthropicAdapter.create("claude-test", { env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-test" }, maxOutputTokens: 16000 })

const bodyOf = (body: unknown) => body as WireRequest
const tool = { name: "Now", description: "the time", parameters: { type: "object", properties: {} } }

describe("AnthropicAdapter content parts", () => {
  it.live("keeps thinking on through a tool loop by sending the signed thinking blocks back", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        replies: [
          {
            reasoning: [{ text: "I should ask the clock.", signature: "sig-1" }, { redactedData: "opaque-2" }],
            toolCalls: [{ id: "toolu_1", name: "Now", arguments: {} }]
          },
          { text: "It is noon." }
        ]
      })
      const model = yield* modelFor(server.url)
      const first: LanguageModel.ModelRequest = { messages: [Messages.userMessage("what time is it?")], tools: [tool], thinking: "medium" }
      const response = yield* model.generate(first)
      assert.deepStrictEqual(response.message.reasoning, [
        { type: "reasoning", text: "I should ask the clock.", provider: "anthropic", signature: "sig-1" },
        { type: "reasoning", text: "", provider: "anthropic", redactedData: "opaque-2" }
      ])
      assert.isUndefined(response.warnings)
      const loop: Array<Messages.Message> = [
        ...first.messages,
        response.message,
        { role: "tool", toolCallId: "toolu_1", name: "Now", content: "12:00" }
      ]
      yield* model.generate({ ...first, messages: loop })
      const second = bodyOf(server.requests[1]?.body)
      assert.deepStrictEqual(second.thinking, { type: "enabled", budget_tokens: 8192 })
      assert.deepStrictEqual(second.messages[1], {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should ask the clock.", signature: "sig-1" },
          { type: "redacted_thinking", data: "opaque-2" },
          { type: "tool_use", id: "toolu_1", name: "Now", input: {} }
        ]
      })
    }))

  it.live("streams reasoning deltas before the reasoning part", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ reasoning: [{ text: "abcdefgh", signature: "s" }], text: "ok" }] })
      const model = yield* modelFor(server.url)
      const parts = yield* Stream.runCollect(model.stream({ messages: [Messages.userMessage("x")], tools: [], thinking: "low" }))
      const types = Array.from(parts, (p) => p.type)
      assert.deepStrictEqual(types.slice(0, 3), ["reasoning-delta", "reasoning-delta", "reasoning"])
      assert.strictEqual(types.at(-1), "finish")
    }))

  it.live("sends images and PDFs as image and document blocks, in user messages and tool results", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "seen" }] })
      const model = yield* modelFor(server.url)
      const assistant: Messages.AssistantMessage = { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "Shot", arguments: "{}" }] }
      yield* model.generate({
        messages: [
          {
            role: "user",
            content: "look",
            parts: [
              { type: "text", text: "look" },
              { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
              { type: "image", mediaType: "image/jpeg", url: "https://example.test/a.jpg" },
              { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "spec.pdf" }
            ]
          },
          assistant,
          { role: "tool", toolCallId: "t1", name: "Shot", content: "a screenshot", parts: [
            { type: "text", text: "a screenshot" },
            { type: "image", mediaType: "image/webp", data: "UklGRg==" }
          ] }
        ],
        tools: []
      })
      const body = bodyOf(server.requests[0]?.body)
      assert.deepStrictEqual(body.messages[0], {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "image", source: { type: "url", url: "https://example.test/a.jpg" } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "spec.pdf" }
        ]
      })
      assert.deepStrictEqual(body.messages[2], {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          content: [
            { type: "text", text: "a screenshot" },
            { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } }
          ]
        }]
      })
    }))

  it.live("drops what the wire cannot take (a WAV file, another provider's reasoning) with warnings", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({
        messages: [
          { role: "user", content: "hear", parts: [{ type: "text", text: "hear" }, { type: "file", mediaType: "audio/wav", data: "UklGRg==" }] },
          { role: "assistant", content: "heard", reasoning: [{ type: "reasoning", text: "hmm", provider: "openai" }] },
          Messages.userMessage("again")
        ],
        tools: [],
        thinking: "medium"
      })
      const warnings = response.warnings ?? []
      assert.strictEqual(warnings.length, 2)
      assert.match(warnings[0] ?? "", /audio\/wav.*dropped/)
      assert.match(warnings[1] ?? "", /not produced by Anthropic/)
      const body = bodyOf(server.requests[0]?.body)
      assert.deepStrictEqual(body.messages[0], { role: "user", content: [{ type: "text", text: "hear" }] })
      assert.deepStrictEqual(body.messages[1], { role: "assistant", content: [{ type: "text", text: "heard" }] })
    }))

  it.live("with thinking off, thinking blocks are left out of the history", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({
        messages: [
          Messages.userMessage("x"),
          { role: "assistant", content: "y", reasoning: [{ type: "reasoning", text: "t", provider: "anthropic", signature: "s" }] },
          Messages.userMessage("z")
        ],
        tools: []
      })
      assert.isUndefined(response.warnings)
      const body = bodyOf(server.requests[0]?.body)
      assert.notProperty(body, "thinking")
      assert.deepStrictEqual(body.messages[1], { role: "assistant", content: [{ type: "text", text: "y" }] })
    }))

  it.live("a tool loop whose opening turn has no thinking block (an old transcript) continues with thinking off", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok" }] })
      const model = yield* modelFor(server.url)
      yield* model.generate({
        messages: [
          Messages.userMessage("x"),
          { role: "assistant", content: "", toolCalls: [{ id: "t", name: "Now", arguments: "{}" }] },
          { role: "tool", toolCallId: "t", name: "Now", content: "12:00" }
        ],
        tools: [tool],
        thinking: "medium"
      })
      assert.notProperty(bodyOf(server.requests[0]?.body), "thinking")
    }))
})
