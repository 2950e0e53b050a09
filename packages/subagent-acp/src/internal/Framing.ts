import type * as acp from "@agentclientprotocol/sdk/unstable"
import { LineFramer, type WebStdio } from "@dsh/subprocess"

/** A frame the child should never have written: the run ends `failed` with this as the reason. */
export interface ProtocolFault {
  readonly kind: "malformed" | "oversized" | "not-json-rpc"
  readonly detail: string
}

export interface StrictFramingOptions {
  /** The longest line accepted, in bytes (its newline excluded). */
  readonly maxMessageBytes: number
  /** The first protocol fault; the stream errors right after, which closes the connection. */
  readonly onFault: (fault: ProtocolFault) => void
  /** Sees every valid message in wire order, before the SDK does (used for session updates). */
  readonly onMessage?: ((message: acp.AnyMessage) => void) | undefined
}

const preview = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Whether a parsed value is a JSON-RPC 2.0 request, notification or response. */
const isJsonRpc = (v: unknown): v is acp.AnyMessage =>
  isRecord(v) && v.jsonrpc === "2.0" &&
  (typeof v.method === "string" || ("id" in v && ("result" in v || "error" in v)))

/**
 * LF-delimited JSON-RPC over a child's stdio (lines cut by the shared `LineFramer` of
 * `@dsh/subprocess`), stricter than the SDK's `ndJsonStream`: the SDK answers garbage with a
 * parse error and carries on, which would let a broken child hang a run. Here a line that is
 * not JSON, not JSON-RPC, or longer than `maxMessageBytes` is a fault: `onFault` hears it and
 * the message stream errors, so the connection closes and every pending request is rejected.
 */
export const strictNdJsonStream = (io: WebStdio.WebStdio, options: StrictFramingOptions): acp.Stream => {
  const encoder = new TextEncoder()
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      reader = io.readable.getReader()
      const framer = new LineFramer.LineFramer(options.maxMessageBytes)
      const fault = (f: ProtocolFault) => {
        options.onFault(f)
        controller.error(new Error(`ACP protocol error: ${f.detail}`))
        void reader?.cancel().catch(() => undefined)
      }
      /** Handles one framer event; false once the stream has faulted. */
      const handle = (event: LineFramer.LineEvent): boolean => {
        if (event._tag === "Oversized") {
          fault({ kind: "oversized", detail: `the agent wrote a message larger than ${options.maxMessageBytes} bytes` })
          return false
        }
        // CRLF is accepted (the CR dropped), and so is a BOM at the start of a line.
        const text = event.text.replace(/^\uFEFF/, "").replace(/\r$/, "")
        if (text.trim() === "") return true
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch {
          fault({ kind: "malformed", detail: `the agent wrote a line that is not JSON: "${preview(text)}"` })
          return false
        }
        if (!isJsonRpc(value)) {
          fault({ kind: "not-json-rpc", detail: `the agent wrote JSON that is not a JSON-RPC 2.0 message: "${preview(text)}"` })
          return false
        }
        options.onMessage?.(value)
        controller.enqueue(value)
        return true
      }
      try {
        while (true) {
          const { value, done } = await reader.read()
          if (done) break
          if (!framer.push(value).every(handle)) return
        }
        // An unterminated last line is still a message.
        if (!framer.end().every(handle)) return
        controller.close()
      } catch (error) {
        controller.error(error)
      }
    },
    cancel(reason) {
      return reader?.cancel(reason)
    }
  })
  const writer = io.writable.getWriter()
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => writer.write(encoder.encode(`${JSON.stringify(message)}\n`)),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason)
  })
  return { readable, writable }
}
