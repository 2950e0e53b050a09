import { FakeSseServer } from "@dsh/llm/testing"

export type FakeReply = FakeSseServer.FakeReply
export type FakeRequest = FakeSseServer.FakeRequest
export type FakeServer = FakeSseServer.FakeServer
export type FakeServerOptions = FakeSseServer.FakeServerOptions

const errorType = (status: number): string =>
  status === 400
    ? "invalid_request_error"
    : status === 401
    ? "authentication_error"
    : status === 403
    ? "permission_error"
    : status === 404
    ? "not_found_error"
    : status === 429
    ? "rate_limit_error"
    : status === 529
    ? "overloaded_error"
    : "api_error"

const anthropicWire: FakeSseServer.FakeWire = {
  basePath: "",
  endpoint: "/v1/messages",
  errorBody: (status, message) => ({ type: "error", error: { type: errorType(status), message } }),
  render: (reply, request, index) => {
    const model = typeof request.body === "object" && request.body !== null && "model" in request.body
      ? String(request.body.model)
      : "fake-model"
    const event = (type: string, data: Record<string, unknown>) => FakeSseServer.sseFrame({ type, ...data }, type)
    const usage = reply.usage ?? { input: 0, output: 0 }
    const head: Array<string> = [
      event("message_start", {
        message: {
          id: `msg_fake_${index}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: Math.min(1, usage.output) }
        }
      }),
      event("ping", {})
    ]
    let block = 0
    for (const thought of reply.reasoning ?? []) {
      if (thought.redactedData !== undefined) {
        head.push(event("content_block_start", { index: block, content_block: { type: "redacted_thinking", data: thought.redactedData } }))
      } else {
        // Like Anthropic: the text in thinking_deltas, then the signature in one signature_delta.
        head.push(event("content_block_start", { index: block, content_block: { type: "thinking", thinking: "", signature: "" } }))
        for (const piece of FakeSseServer.chunkText(thought.text ?? "")) {
          head.push(event("content_block_delta", { index: block, delta: { type: "thinking_delta", thinking: piece } }))
        }
        head.push(event("content_block_delta", { index: block, delta: { type: "signature_delta", signature: thought.signature ?? "" } }))
      }
      head.push(event("content_block_stop", { index: block }))
      block++
    }
    const text = FakeSseServer.chunkText(reply.text ?? "")
    if (text.length > 0) {
      head.push(event("content_block_start", { index: block, content_block: { type: "text", text: "" } }))
      for (const piece of text) {
        head.push(event("content_block_delta", { index: block, delta: { type: "text_delta", text: piece } }))
      }
      head.push(event("content_block_stop", { index: block }))
      block++
    }
    const calls = reply.toolCalls ?? []
    calls.forEach((call, i) => {
      // Like Anthropic: id and name in content_block_start, the input as partial JSON after it.
      head.push(event("content_block_start", {
        index: block,
        content_block: { type: "tool_use", id: call.id ?? `toolu_fake_${index}_${i}`, name: call.name, input: {} }
      }))
      for (const piece of FakeSseServer.splitInParts(FakeSseServer.argumentsText(call.arguments), 3)) {
        head.push(event("content_block_delta", { index: block, delta: { type: "input_json_delta", partial_json: piece } }))
      }
      head.push(event("content_block_stop", { index: block }))
      block++
    })
    if (reply.streamError !== undefined) {
      return {
        head,
        tail: [event("error", { error: { type: reply.streamError.type ?? "overloaded_error", message: reply.streamError.message } })]
      }
    }
    const tail = [
      event("message_delta", {
        delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output }
      }),
      event("message_stop", {})
    ]
    return { head, tail }
  }
}

/**
 * A scripted Anthropic Messages server on 127.0.0.1 (a real socket, so the whole HTTP path
 * runs): put `url` in `ANTHROPIC_BASE_URL`. Streams events shaped like Anthropic's: text
 * blocks in several deltas, tool input as split `input_json_delta`s, usage in
 * `message_start` and `message_delta` (zeros when `usage` is not scripted).
 */
export const startFakeAnthropicServer = (options: FakeSseServer.FakeServerOptions): Promise<FakeSseServer.FakeServer> =>
  FakeSseServer.startFakeSseServer(anthropicWire, options)
