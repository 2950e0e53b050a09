/** One server-sent event: its `event:` name (default `message`) and its joined `data:` lines. */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * Incremental SSE decoder: feed it text chunks as they arrive (split anywhere, even
 * inside a line or a CRLF pair) and it returns the events completed so far. Lines may
 * end in LF, CRLF or a lone CR; comments and `id`/`retry` fields are skipped.
 */
export const makeSseDecoder = () => {
  let buffer = ""
  let first = true
  let event = ""
  let data: Array<string> = []
  const line = (raw: string, out: Array<SseEvent>) => {
    if (raw === "") {
      // As the spec says, an event whose data is empty is not dispatched (e.g. a bare `data:` keep-alive).
      const joined = data.join("\n")
      if (joined !== "") out.push({ event: event || "message", data: joined })
      event = ""
      data = []
      return
    }
    if (raw.startsWith(":")) return
    const colon = raw.indexOf(":")
    const field = colon < 0 ? raw : raw.slice(0, colon)
    let value = colon < 0 ? "" : raw.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") data.push(value)
    else if (field === "event") event = value
  }
  return {
    push(chunk: string): Array<SseEvent> {
      buffer += chunk
      if (first && buffer !== "") {
        first = false
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1)
      }
      const out: Array<SseEvent> = []
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c !== 10 && c !== 13) continue
        // A CR as the last character may be the first half of a CRLF split across chunks.
        if (c === 13 && i === buffer.length - 1) break
        line(buffer.slice(start, i), out)
        if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++
        start = i + 1
      }
      buffer = buffer.slice(start)
      return out
    },
    /** Completes a final event that was not followed by a blank line (lenient: the spec drops it). */
    end(): Array<SseEvent> {
      const out: Array<SseEvent> = []
      const rest = buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer
      if (rest !== "") line(rest, out)
      buffer = ""
      line("", out)
      return out
    }
  }
}
