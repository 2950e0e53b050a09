/** One server-sent event: its `event:` name (default `message`) and its joined `data:` lines. */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * Incremental SSE decoder: feed it text chunks as they arrive (split anywhere, even
 * inside a line or a CRLF pair) and it returns the events completed so far.
 */
export const makeSseDecoder = () => {
  let buffer = ""
  let event = ""
  let data: Array<string> = []
  const line = (raw: string, out: Array<SseEvent>) => {
    if (raw === "") {
      if (data.length > 0) out.push({ event: event || "message", data: data.join("\n") })
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
      const out: Array<SseEvent> = []
      let start = 0
      for (;;) {
        const nl = buffer.indexOf("\n", start)
        if (nl < 0) break
        const end = nl > start && buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
        line(buffer.slice(start, end), out)
        start = nl + 1
      }
      buffer = buffer.slice(start)
      return out
    },
    /** Completes a final event that was not followed by a blank line. */
    end(): Array<SseEvent> {
      const out: Array<SseEvent> = []
      if (buffer !== "") line(buffer, out)
      buffer = ""
      line("", out)
      return out
    }
  }
}
