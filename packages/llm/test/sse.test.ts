import { describe, expect, it } from "vitest"
import { makeSseDecoder, type SseEvent } from "../src/internal/sse.ts"

/** Decodes UTF-8 bytes delivered in the given pieces, the way `postSse` does. */
const decodeBytes = (pieces: ReadonlyArray<Uint8Array>): Array<SseEvent> => {
  const decoder = makeSseDecoder()
  const text = new TextDecoder()
  const out: Array<SseEvent> = []
  for (const piece of pieces) out.push(...decoder.push(text.decode(piece, { stream: true })))
  out.push(...decoder.push(text.decode()), ...decoder.end())
  return out
}

const decodeText = (pieces: ReadonlyArray<string>): Array<SseEvent> => {
  const decoder = makeSseDecoder()
  const out: Array<SseEvent> = []
  for (const piece of pieces) out.push(...decoder.push(piece))
  out.push(...decoder.end())
  return out
}

const STREAM = [
  ": a comment, then a keep-alive\r\n",
  "\r\n",
  "event: message_start\r\n",
  "data: {\"type\":\"message_start\"}\r\n",
  "\r\n",
  "data: first line\n",
  "data:second line\n",
  "data:  two spaces\n",
  "id: 7\n",
  "retry: 1000\n",
  "\n",
  "event: delta\r",
  "data: {\"text\":\"héllo ✓ 🙂\"}\r",
  "\r",
  "data\n",
  "\n",
  "data: [DONE]\n",
  "\n"
].join("")

const EXPECTED: Array<SseEvent> = [
  { event: "message_start", data: "{\"type\":\"message_start\"}" },
  { event: "message", data: "first line\nsecond line\n two spaces" },
  { event: "delta", data: "{\"text\":\"héllo ✓ 🙂\"}" },
  { event: "message", data: "[DONE]" }
]

describe("makeSseDecoder", () => {
  it("decodes CRLF, LF and CR line ends, comments, multi-line data, and skips empty data", () => {
    expect(decodeText([STREAM])).toEqual(EXPECTED)
  })

  it("gives the same events when the bytes are split at every possible boundary", () => {
    const bytes = new TextEncoder().encode(STREAM)
    for (let i = 0; i <= bytes.length; i++) {
      expect(decodeBytes([bytes.subarray(0, i), bytes.subarray(i)]), `split at byte ${i}`).toEqual(EXPECTED)
    }
  })

  it("gives the same events when split at every pair of boundaries", () => {
    const bytes = new TextEncoder().encode(STREAM)
    for (let i = 0; i <= bytes.length; i += 1) {
      for (let j = i; j <= bytes.length; j += 3) {
        const pieces = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]
        expect(decodeBytes(pieces), `split at bytes ${i} and ${j}`).toEqual(EXPECTED)
      }
    }
  })

  it("gives the same events when fed one byte at a time", () => {
    const bytes = new TextEncoder().encode(STREAM)
    expect(decodeBytes(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))).toEqual(EXPECTED)
  })

  it("returns events as soon as their blank line arrives", () => {
    const decoder = makeSseDecoder()
    expect(decoder.push("data: a\n")).toEqual([])
    expect(decoder.push("\n")).toEqual([{ event: "message", data: "a" }])
    expect(decoder.push("data: b\r")).toEqual([])
    // The CR might start a CRLF: the event completes only once the next character is known.
    expect(decoder.push("\n\r\n")).toEqual([{ event: "message", data: "b" }])
  })

  it("strips a leading byte-order mark", () => {
    expect(decodeText(["\uFEFFdata: x\n\n"])).toEqual([{ event: "message", data: "x" }])
    expect(decodeText(["", "\uFEFF", "data: x\n\n"])).toEqual([{ event: "message", data: "x" }])
  })

  it("completes a last event that lacks its blank line", () => {
    expect(decodeText(["data: tail"])).toEqual([{ event: "message", data: "tail" }])
    expect(decodeText(["data: tail\r"])).toEqual([{ event: "message", data: "tail" }])
    expect(decodeText(["event: only-a-name\n"])).toEqual([])
  })

  it("resets the event name after each event", () => {
    expect(decodeText(["event: a\ndata: 1\n\ndata: 2\n\n"])).toEqual([
      { event: "a", data: "1" },
      { event: "message", data: "2" }
    ])
  })
})
