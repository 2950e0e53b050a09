import { Messages } from "@dsh/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { OpenAIAdapter } from "../src/index.ts"
import type { WireRequest } from "../src/internal/wire.ts"
import { FakeOpenAIServer } from "../src/testing.ts"

const fakeServer = (options: FakeOpenAIServer.FakeServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeOpenAIServer.startFakeOpenAIServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const modelFor = (url: string) => OpenAIAdapter.OpenAIAdapter.create("gpt-test", { env: { OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test" } })

const bodyOf = (body: unknown) => body as WireRequest

describe("OpenAIAdapter content parts", () => {
  it.live("sends user images as image_url parts, inline data as a data URL", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "a cat" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({
        messages: [{
          role: "user",
          content: "what is this?",
          parts: [
            { type: "text", text: "what is this?" },
            { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
            { type: "image", mediaType: "image/jpeg", url: "https://example.test/a.jpg" }
          ]
        }],
        tools: []
      })
      assert.isUndefined(response.warnings)
      assert.deepStrictEqual(bodyOf(server.requests[0]?.body).messages[0], {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.test/a.jpg" } }
        ]
      })
    }))

  it.live("moves tool-result images to a user message after the tool results; drops files with a warning", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({
        messages: [
          { role: "user", content: "read", parts: [{ type: "text", text: "read" }, { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "a.pdf" }] },
          { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "Shot", arguments: "{}" }, { id: "c2", name: "Now", arguments: "{}" }] },
          { role: "tool", toolCallId: "c1", name: "Shot", content: "shot", parts: [{ type: "text", text: "shot" }, { type: "image", mediaType: "image/png", data: "AAAA" }] },
          { role: "tool", toolCallId: "c2", name: "Now", content: "12:00" }
        ],
        tools: []
      })
      assert.deepStrictEqual(response.warnings, ["a file (a.pdf) in a user message was dropped (Chat Completions takes images only)"])
      const messages = bodyOf(server.requests[0]?.body).messages
      assert.deepStrictEqual(messages[0], { role: "user", content: "read" })
      assert.deepStrictEqual(messages.map((m) => m.role), ["user", "assistant", "tool", "tool", "user"])
      assert.deepStrictEqual(messages[2], { role: "tool", tool_call_id: "c1", content: "shot" })
      assert.deepStrictEqual(messages[4], {
        role: "user",
        content: [
          { type: "text", text: "[attachments of the Shot result c1]" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }
        ]
      })
    }))

  it.live("parses reasoning_content into reasoning parts and reports reasoning tokens; sends no reasoning back", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({
        replies: [
          { reasoning: [{ text: "think first" }], text: "answer", usage: { input: 5, output: 9 }, reasoningTokens: 4 },
          { text: "again" }
        ]
      })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({ messages: [Messages.userMessage("q")], tools: [] })
      assert.deepStrictEqual(response.message.reasoning, [{ type: "reasoning", text: "think first", provider: "openai" }])
      assert.strictEqual(response.usage.reasoningTokens, 4)
      const next = yield* model.generate({ messages: [Messages.userMessage("q"), response.message, Messages.userMessage("more")], tools: [] })
      assert.isUndefined(next.warnings)
      assert.deepStrictEqual(bodyOf(server.requests[1]?.body).messages[1], { role: "assistant", content: "answer" })
    }))

  it.live("warns when another provider's reasoning cannot be sent", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer({ replies: [{ text: "ok" }] })
      const model = yield* modelFor(server.url)
      const response = yield* model.generate({
        messages: [
          Messages.userMessage("q"),
          { role: "assistant", content: "a", reasoning: [{ type: "reasoning", text: "t", provider: "anthropic", signature: "s" }] },
          Messages.userMessage("r")
        ],
        tools: []
      })
      assert.strictEqual(response.warnings?.length, 1)
      assert.match(response.warnings?.[0] ?? "", /another provider/)
    }))
})
