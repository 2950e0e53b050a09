/**
 * LF-delimited framing for stdio protocols (the dsh SDK protocol, ACP): one message per line,
 * cut at `\n` (0x0A) only. JSON text never holds a raw LF (JSON.stringify escapes it inside
 * strings), so splitting on the byte is exact. Lines are collected as bytes and decoded once
 * complete, so a multi-byte character split across chunks arrives whole.
 */

const LF = 0x0a

/** What a {@link LineFramer} found in the bytes so far. */
export type LineEvent =
  /** A complete, non-blank line without its LF. A `\r` before the LF is kept (it is JSON whitespace). */
  | { readonly _tag: "Frame"; readonly text: string }
  /** A line grew past the limit; its bytes up to the next LF are dropped. Reported once per line, as soon as it is seen. */
  | { readonly _tag: "Oversized"; readonly bytes: number }

/**
 * An incremental line splitter with a maximum line size: feed chunks as they arrive with
 * `push`, get complete lines back. Blank (whitespace-only) lines are skipped; a line longer
 * than `maxBytes` (its LF excluded) is reported as `Oversized` the moment it passes the limit
 * (before its LF arrives), then dropped, and framing goes on after its LF. Decoding is UTF-8
 * with replacement characters; a leading BOM is kept (callers that want it gone strip it).
 * At the end of input, `pendingBytes` tells whether a last line was left unterminated and
 * `end()` hands it over, for protocols that accept one.
 */
export class LineFramer {
  private parts: Array<Uint8Array> = []
  private size = 0
  private discarding = false
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  /** The longest line accepted, in bytes, its LF excluded. */
  readonly maxBytes: number

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  /** Takes the next chunk; returns the lines it completed and any line that just passed the limit, in order. */
  push(chunk: Uint8Array): Array<LineEvent> {
    const out: Array<LineEvent> = []
    let start = 0
    while (start <= chunk.length) {
      const lf = chunk.indexOf(LF, start)
      if (lf === -1) {
        // The chunk's buffer may be reused by its producer: keep a copy of what we carry over.
        this.accumulate(chunk.subarray(start), out, true)
        break
      }
      this.accumulate(chunk.subarray(start, lf), out, false)
      this.finish(out)
      start = lf + 1
    }
    return out
  }

  /** Bytes of an unterminated last line (the input ended mid-line); 0 after a clean end or an oversized line. */
  get pendingBytes(): number {
    return this.size
  }

  /**
   * The end of input: the unterminated last line as a `Frame` (none when it is blank, or when
   * the input ended cleanly or inside an oversized line). The framer starts over afterwards.
   */
  end(): Array<LineEvent> {
    const out: Array<LineEvent> = []
    this.finish(out)
    return out
  }

  private accumulate(piece: Uint8Array, out: Array<LineEvent>, copy: boolean): void {
    if (piece.length === 0 || this.discarding) return
    if (this.size + piece.length > this.maxBytes) {
      out.push({ _tag: "Oversized", bytes: this.size + piece.length })
      this.discarding = true
      this.parts = []
      this.size = 0
      return
    }
    this.parts.push(copy ? piece.slice() : piece)
    this.size += piece.length
  }

  private finish(out: Array<LineEvent>): void {
    if (this.discarding) {
      this.discarding = false
      return
    }
    if (this.size === 0) return
    const bytes = this.parts.length === 1 ? this.parts[0]! : concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    const text = this.decoder.decode(bytes)
    // Blank lines are not frames (a peer may pad with them); anything else is, even if malformed.
    if (text.trim() !== "") out.push({ _tag: "Frame", text })
  }
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
