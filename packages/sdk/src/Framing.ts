/**
 * LF-delimited framing: one JSON text per line, `\n` (0x0A) only; a `\r` before the LF is JSON
 * whitespace and needs no special case. The decoder is the shared `LineFramer` of
 * `@dsh/subprocess` (also used by the ACP backend); this module names it for the SDK protocol.
 */
import { LineFramer } from "@dsh/subprocess"

/** 8 MiB: far above any event or result dsh sends, far below what would hurt a process. */
export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024

/** What the decoder found in the bytes so far: a `Frame`, or an `Oversized` report (see `LineFramer`). */
export type FrameEvent = LineFramer.LineEvent

/**
 * Incremental decoder: feed chunks as they arrive, get complete frames back. A `LineFramer`
 * whose limit defaults to {@link DEFAULT_MAX_FRAME_BYTES}; an unterminated last frame is left
 * in `pendingBytes` (the SDK protocol never accepts one).
 */
export class FrameDecoder extends LineFramer.LineFramer {
  constructor(maxBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    super(maxBytes)
  }
}

/** The bytes of one frame: compact JSON plus LF. */
export const encodeFrame = (message: unknown): string => `${JSON.stringify(message)}\n`
