import { FakeSseServer } from "@dsh/llm/testing"

export type FakeReply = FakeSseServer.FakeReply
export type FakeRequest = FakeSseServer.FakeRequest
export type FakeServer = FakeSseServer.FakeServer
export type FakeServerOptions = FakeSseServer.FakeServerOptions

const openAIWire: FakeSseServer.FakeWire = {
  basePath: "/v1",
  endpoint: "/v1/chat/completions",
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 401 ? "invalid_request_error" : status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: null
    }
  }),
  render: (reply, request, index) => {
    const model = typeof request.body === "object" && request.body !== null && "model" in request.body
      ? String(request.body.model)
      : "fake-model"
    const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
      FakeSseServer.sseFrame({
        id: `chatcmpl-fake-${index}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: choice === undefined ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
        ...extra
      })
    const head: Array<string> = [chunk({ delta: { role: "assistant", content: "" } })]
    for (const thought of reply.reasoning ?? []) {
      for (const piece of FakeSseServer.chunkText(thought.text ?? "")) head.push(chunk({ delta: { reasoning_content: piece } }))
    }
    for (const piece of FakeSseServer.chunkText(reply.text ?? "")) head.push(chunk({ delta: { content: piece } }))
    const calls = reply.toolCalls ?? []
    calls.forEach((call, i) => {
      // Like OpenAI: id, type and name in the first fragment, the arguments split after it.
      head.push(chunk({
        delta: {
          tool_calls: [{ index: i, id: call.id ?? `call_fake_${index}_${i}`, type: "function", function: { name: call.name, arguments: "" } }]
        }
      }))
      for (const piece of FakeSseServer.splitInParts(FakeSseServer.argumentsText(call.arguments), 3)) {
        head.push(chunk({ delta: { tool_calls: [{ index: i, function: { arguments: piece } }] } }))
      }
    })
    if (reply.streamError !== undefined) {
      return {
        head,
        tail: [FakeSseServer.sseFrame({ error: { message: reply.streamError.message, type: reply.streamError.type ?? "server_error", code: null } })]
      }
    }
    const tail = [chunk({ delta: {}, finish_reason: calls.length > 0 ? "tool_calls" : "stop" })]
    if (reply.usage !== undefined) {
      tail.push(chunk(undefined, {
        usage: {
          prompt_tokens: reply.usage.input,
          completion_tokens: reply.usage.output,
          total_tokens: reply.usage.input + reply.usage.output,
          ...(reply.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reply.reasoningTokens } } : {})
        }
      }))
    }
    tail.push(FakeSseServer.sseFrame("[DONE]"))
    return { head, tail }
  }
}

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (a real socket, so the whole HTTP path
 * runs): put `url` in `OPENAI_BASE_URL`. Streams chunks shaped like OpenAI's, including
 * split tool-call arguments and the trailing usage chunk (only when `usage` is scripted).
 */
export const startFakeOpenAIServer = (options: FakeSseServer.FakeServerOptions): Promise<FakeSseServer.FakeServer> =>
  FakeSseServer.startFakeSseServer(openAIWire, options)
