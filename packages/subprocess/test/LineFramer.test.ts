import { describe, expect, it } from "vitest"
import { LineFramer } from "../src/index.ts"

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
const show = (events: ReadonlyArray<LineFramer.LineEvent>): Array<string> =>
  events.map((e) => (e._tag === "Frame" ? e.text : `Oversized(${e.bytes})`))

describe("LineFramer", () => {
  it("cuts lines at LF only, across chunk boundaries, skipping blank lines", () => {
    const f = new LineFramer.LineFramer(1024)
    expect(show(f.push(bytes("{\"a\":1}\n{\"b\"")))).toEqual(["{\"a\":1}"])
    expect(f.pendingBytes, "the unterminated half line is pending").toBe(4)
    expect(show(f.push(bytes(":2}\n\n  \n\r\n")))).toEqual(["{\"b\":2}"])
    expect(f.pendingBytes).toBe(0)
    expect(show(f.push(bytes("one\rtwo\n")))).toEqual(["one\rtwo"]) // a lone CR does not cut
  })

  it("keeps the CR of a CRLF line ending (JSON whitespace) and a leading BOM", () => {
    const f = new LineFramer.LineFramer(1024)
    expect(show(f.push(bytes("{\"c\":3}\r\n\uFEFF{\"d\":4}\n")))).toEqual(["{\"c\":3}\r", "\uFEFF{\"d\":4}"])
  })

  it("feeds byte by byte and gets the same lines", () => {
    const input = bytes("{\"a\":1}\n\n{\"b\":\"x y\"}\n")
    const f = new LineFramer.LineFramer(1024)
    const out: Array<LineFramer.LineEvent> = []
    for (let i = 0; i < input.length; i++) out.push(...f.push(input.subarray(i, i + 1)))
    expect(show(out)).toEqual(["{\"a\":1}", "{\"b\":\"x y\"}"])
  })

  it("decodes a multi-byte character split across chunks whole, wherever the cut falls", () => {
    const text = "{\"text\":\"héllo ✓ 😀\"}"
    const input = bytes(`${text}\n`)
    for (let cut = 1; cut < input.length; cut++) {
      const f = new LineFramer.LineFramer(1024)
      const out = [...f.push(input.subarray(0, cut)), ...f.push(input.subarray(cut))]
      expect(show(out), `cut at byte ${cut}`).toEqual([text])
    }
  })

  it("copies what it carries over, so a producer may reuse its chunk buffer", () => {
    const f = new LineFramer.LineFramer(1024)
    const chunk = bytes("abc")
    f.push(chunk)
    chunk.set(bytes("XYZ"))
    expect(show(f.push(bytes("def\n")))).toEqual(["abcdef"])
  })

  it("accepts a line of exactly maxBytes", () => {
    const f = new LineFramer.LineFramer(8)
    expect(show(f.push(bytes("12345678\n")))).toEqual(["12345678"])
    expect(show(f.push(bytes("1234")))).toEqual([])
    expect(show(f.push(bytes("5678\n")))).toEqual(["12345678"])
  })

  it("reports an oversized line once, as soon as it passes the limit, drops it up to the next LF, and goes on", () => {
    const f = new LineFramer.LineFramer(16)
    expect(f.push(bytes("x".repeat(10)))).toEqual([])
    expect(f.push(bytes("y".repeat(10))), "reported before its LF arrives").toEqual([{ _tag: "Oversized", bytes: 20 }])
    expect(f.pendingBytes, "the dropped line is not pending").toBe(0)
    expect(f.push(bytes("z".repeat(100))), "reported only once").toEqual([])
    expect(show(f.push(bytes("zz\n{\"ok\":true}\n")))).toEqual(["{\"ok\":true}"])
  })

  it("keeps the order of lines before and after an oversized one in the same chunk", () => {
    const f = new LineFramer.LineFramer(4)
    expect(show(f.push(bytes("ab\ntoo long\ncd\n")))).toEqual(["ab", "Oversized(8)", "cd"])
  })

  it("hands over an unterminated last line at the end, and starts over", () => {
    const f = new LineFramer.LineFramer(1024)
    expect(show(f.push(bytes("{\"a\":1}\n{\"last\":true}")))).toEqual(["{\"a\":1}"])
    expect(f.pendingBytes).toBe(13)
    expect(show(f.end())).toEqual(["{\"last\":true}"])
    expect(f.pendingBytes).toBe(0)
    expect(f.end(), "nothing is left after the end").toEqual([])
  })

  it("gives nothing at the end after a clean end, a blank tail, or inside an oversized line", () => {
    const clean = new LineFramer.LineFramer(1024)
    clean.push(bytes("{}\n"))
    expect(clean.end()).toEqual([])
    const blank = new LineFramer.LineFramer(1024)
    blank.push(bytes("{}\n  \r"))
    expect(blank.end()).toEqual([])
    const oversized = new LineFramer.LineFramer(4)
    expect(show(oversized.push(bytes("abcdefgh")))).toEqual(["Oversized(8)"])
    expect(oversized.end()).toEqual([])
    expect(show(oversized.push(bytes("ok\n"))), "the framer starts over after end").toEqual(["ok"])
  })

  it("replaces invalid UTF-8 instead of failing", () => {
    const f = new LineFramer.LineFramer(1024)
    expect(show(f.push(new Uint8Array([0x61, 0xff, 0x62, 0x0a])))).toEqual(["a\uFFFDb"])
  })
})
