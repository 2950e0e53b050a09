/**
 * LF-delimited framing: one JSON text per line, `\n` (0x0A) only. JSON text never holds a raw
 * LF (JSON.stringify escapes it inside strings), so splitting on the byte is exact; a `\r`
 * before the LF is JSON whitespace and needs no special case. Frames are collected as bytes and
 * decoded once complete, so a multi-byte character split across chunks arrives whole.
 */

/** 8 MiB: far above any event or result dsh sends, far below what would hurt a process. */
export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024

const LF = 0x0a

/** What the decoder found in the bytes so far. */
export type FrameEvent =
  | { readonly _tag: "Frame"; readonly text: string }
  /** A frame grew past the limit; its bytes up to the next LF are dropped. Reported once per frame, as soon as it is seen. */
  | { readonly _tag: "Oversized"; readonly bytes: number }

/** Incremental decoder: feed chunks as they arrive, get complete frames back. */
export class FrameDecoder {
  private parts: Array<Buffer> = []
  private size = 0
  private discarding = false
  readonly maxBytes: number

  constructor(maxBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    this.maxBytes = maxBytes
  }

  push(chunk: Buffer): Array<FrameEvent> {
    const out: Array<FrameEvent> = []
    let start = 0
    while (start <= chunk.length) {
      const lf = chunk.indexOf(LF, start)
      if (lf === -1) {
        this.accumulate(chunk.subarray(start), out)
        break
      }
      this.accumulate(chunk.subarray(start, lf), out)
      this.finish(out)
      start = lf + 1
    }
    return out
  }

  /** Bytes of an unterminated last frame (the stream ended mid-frame); 0 when the input ended cleanly. */
  get pendingBytes(): number {
    return this.size
  }

  private accumulate(piece: Buffer, out: Array<FrameEvent>): void {
    if (piece.length === 0 || this.discarding) return
    if (this.size + piece.length > this.maxBytes) {
      out.push({ _tag: "Oversized", bytes: this.size + piece.length })
      this.discarding = true
      this.parts = []
      this.size = 0
      return
    }
    this.parts.push(piece)
    this.size += piece.length
  }

  private finish(out: Array<FrameEvent>): void {
    if (this.discarding) {
      this.discarding = false
      return
    }
    if (this.size === 0) return
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    const text = bytes.toString("utf8")
    // Blank lines are not frames (a peer may pad with them); anything else is, even if malformed.
    if (text.trim() !== "") out.push({ _tag: "Frame", text })
  }
}

/** The bytes of one frame: compact JSON plus LF. */
export const encodeFrame = (message: unknown): string => `${JSON.stringify(message)}\n`
