/**
 * Byte buffers for child output. Both hold raw bytes and decode once at the end, so a
 * multi-byte character split across chunks is decoded whole.
 */

/** Keeps only the last `limit` bytes written (the stderr tail for error reports). */
export class ByteTail {
  private chunks: Array<Uint8Array> = []
  private size = 0
  private readonly limit: number

  constructor(limit: number) {
    this.limit = limit
  }

  push(chunk: Uint8Array): void {
    if (this.limit <= 0) return
    const piece = chunk.length > this.limit ? chunk.subarray(chunk.length - this.limit) : chunk
    this.chunks.push(piece)
    this.size += piece.length
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0
    }
  }

  /** The kept bytes as text, without a broken leading character. */
  text(): string {
    let bytes = Buffer.concat(this.chunks)
    if (bytes.length > this.limit) bytes = bytes.subarray(bytes.length - this.limit)
    let start = 0
    // Skip UTF-8 continuation bytes left over from a character cut at the front.
    while (start < bytes.length && start < 3 && (bytes[start]! & 0xc0) === 0x80) start++
    return bytes.subarray(start).toString("utf8")
  }
}

/** Collects stdout and stderr up to a shared byte budget; the rest is counted, not kept. */
export class OutputCollector {
  private readonly stdout: Array<Uint8Array> = []
  private readonly stderr: Array<Uint8Array> = []
  private kept = 0
  private readonly maxBytes: number
  truncated = false

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  push(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    const room = this.maxBytes - this.kept
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true
      return
    }
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk
    if (piece.length < chunk.length) this.truncated = true
    ;(stream === "stdout" ? this.stdout : this.stderr).push(piece)
    this.kept += piece.length
  }

  text(stream: "stdout" | "stderr"): string {
    return Buffer.concat(stream === "stdout" ? this.stdout : this.stderr).toString("utf8")
  }
}
