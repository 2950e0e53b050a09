import { describe, expect, it } from "vitest"
import { type ProtocolFault, strictNdJsonStream } from "../src/internal/Framing.ts"

// The strict framing layer on its own: messages split across reads, CRLF, blank lines, and
// the faults that end a run (not JSON, not JSON-RPC, too large).
const feed = async (chunks: ReadonlyArray<string>, maxMessageBytes = 1024) => {
  const faults: Array<ProtocolFault> = []
  const seen: Array<unknown> = []
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c))
      controller.close()
    }
  })
  const stream = strictNdJsonStream({ readable, writable: new WritableStream() }, {
    maxMessageBytes,
    onFault: (f) => faults.push(f),
    onMessage: (m) => seen.push(m)
  })
  const messages: Array<unknown> = []
  let error: unknown
  try {
    for await (const m of stream.readable) messages.push(m)
  } catch (e) {
    error = e
  }
  return { messages, seen, faults, error }
}

describe("strictNdJsonStream", () => {
  it("reassembles messages split across reads and accepts CRLF and blank lines", async () => {
    const r = await feed(["{\"jsonrpc\":\"2.0\",\"id\":1,", "\"result\":{}}\r\n\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", "\n"])
    expect(r.messages).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", method: "x" }])
    expect(r.seen).toEqual(r.messages)
    expect(r.faults).toEqual([])
  })

  it("an unterminated last line is still a message, and a BOM before a message is accepted", async () => {
    const r = await feed(["\uFEFF{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",", "\"method\":\"b\"}"])
    expect(r.messages).toEqual([{ jsonrpc: "2.0", method: "a" }, { jsonrpc: "2.0", method: "b" }])
    expect(r.faults).toEqual([])
    expect(r.error).toBeUndefined()
  })

  it("an unterminated last line that is not JSON is a fault", async () => {
    const r = await feed(["{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\nbye"])
    expect(r.seen).toHaveLength(1)
    expect(r.faults).toMatchObject([{ kind: "malformed", detail: expect.stringContaining("bye") }])
  })

  it("a message of exactly the limit passes; one byte more is a fault", async () => {
    const message = `{"jsonrpc":"2.0","method":"x","params":"${"y".repeat(100)}"}`
    const limit = new TextEncoder().encode(message).length
    expect((await feed([`${message}\n`], limit)).faults).toEqual([])
    expect((await feed([`${message}\n`], limit - 1)).faults).toMatchObject([{ kind: "oversized" }])
  })

  it("a line that is not JSON is a fault that ends the stream", async () => {
    const r = await feed(["{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\nLoading model...\n{\"jsonrpc\":\"2.0\",\"method\":\"y\"}\n"])
    expect(r.seen).toHaveLength(1) // the tap saw the good message; the errored stream may drop unread ones
    expect(r.faults).toMatchObject([{ kind: "malformed", detail: expect.stringContaining("Loading model...") }])
    expect(String(r.error)).toContain("ACP protocol error")
  })

  it("JSON that is not JSON-RPC is a fault", async () => {
    const r = await feed(["{\"hello\":\"world\"}\n"])
    expect(r.faults).toMatchObject([{ kind: "not-json-rpc" }])
  })

  it("a message over the limit is a fault, even before its newline arrives", async () => {
    const r = await feed([`{"jsonrpc":"2.0","method":"x","params":"${"y".repeat(2000)}`], 1024)
    expect(r.faults).toMatchObject([{ kind: "oversized", detail: expect.stringContaining("1024 bytes") }])
  })
})
