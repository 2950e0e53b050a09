import { describe, expect, it } from "vitest"
import { Framing } from "../src/index.ts"

const texts = (events: ReadonlyArray<Framing.FrameEvent>): Array<string> => events.map((e) => (e._tag === "Frame" ? e.text : e._tag))

describe("FrameDecoder", () => {
  it("cuts frames at LF only, across chunk boundaries", () => {
    const d = new Framing.FrameDecoder(1024)
    expect(texts(d.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}'])
    expect(d.pendingBytes).toBe(4)
    expect(texts(d.push(Buffer.from(':2}\n\n  \n{"c":3}\r\n')))).toEqual(['{"b":2}', '{"c":3}\r'])
    expect(JSON.parse('{"c":3}\r')).toEqual({ c: 3 }) // CR before LF is JSON whitespace
    expect(d.pendingBytes).toBe(0)
  })

  it("decodes a multi-byte character split across chunks whole", () => {
    const bytes = Buffer.from(Framing.encodeFrame({ text: "héllo ✓ 😀" }))
    const d = new Framing.FrameDecoder(1024)
    const out = [...d.push(bytes.subarray(0, 3)), ...d.push(bytes.subarray(3, 12)), ...d.push(bytes.subarray(12))]
    expect(out).toHaveLength(1)
    expect(JSON.parse(texts(out)[0]!)).toEqual({ text: "héllo ✓ 😀" })
  })

  it("reports an oversized frame once, drops it up to the next LF, and goes on", () => {
    const d = new Framing.FrameDecoder(16)
    const first = d.push(Buffer.from("x".repeat(10)))
    expect(first).toEqual([])
    const second = d.push(Buffer.from("y".repeat(10)))
    expect(second).toEqual([{ _tag: "Oversized", bytes: 20 }])
    expect(d.push(Buffer.from("z".repeat(100)))).toEqual([])
    expect(texts(d.push(Buffer.from('zz\n{"ok":true}\n')))).toEqual(['{"ok":true}'])
  })

  it("encodes compact JSON with escaped newlines and one trailing LF", () => {
    const frame = Framing.encodeFrame({ text: "a\nb" })
    expect(frame).toBe('{"text":"a\\nb"}\n')
    expect(frame.indexOf("\n")).toBe(frame.length - 1)
  })
})
