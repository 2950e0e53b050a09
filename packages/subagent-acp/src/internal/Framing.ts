import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { WebStdio } from "@dsh/subprocess"

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
 * LF-delimited JSON-RPC over a child's stdio, stricter than the SDK's `ndJsonStream`: the SDK
 * answers garbage with a parse error and carries on, which would let a broken child hang a
 * run. Here a line that is not JSON, not JSON-RPC, or longer than `maxMessageBytes` is a
 * fault: `onFault` hears it and the message stream errors, so the connection closes and every
 * pending request is rejected.
 */
export const strictNdJsonStream = (io: WebStdio, options: StrictFramingOptions): acp.Stream => {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      reader = io.readable.getReader()
      let pending: Array<Uint8Array> = []
      let pendingBytes = 0
      const fault = (f: ProtocolFault) => {
        options.onFault(f)
        controller.error(new Error(`ACP protocol error: ${f.detail}`))
        void reader?.cancel().catch(() => undefined)
      }
      /** Handles one complete line; false once the stream has faulted. */
      const line = (bytes: Uint8Array): boolean => {
        const text = decoder.decode(bytes).replace(/\r$/, "")
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
      const join = (tail: Uint8Array): Uint8Array => {
        const out = new Uint8Array(pendingBytes + tail.length)
        let at = 0
        for (const p of pending) {
          out.set(p, at)
          at += p.length
        }
        out.set(tail, at)
        pending = []
        pendingBytes = 0
        return out
      }
      try {
        while (true) {
          const { value, done } = await reader.read()
          if (done) break
          let from = 0
          for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, from)) {
            if (pendingBytes + (i - from) > options.maxMessageBytes) {
              return fault({ kind: "oversized", detail: `the agent wrote a message larger than ${options.maxMessageBytes} bytes` })
            }
            if (!line(join(value.subarray(from, i)))) return
            from = i + 1
          }
          const rest = value.subarray(from)
          if (pendingBytes + rest.length > options.maxMessageBytes) {
            return fault({ kind: "oversized", detail: `the agent wrote a message larger than ${options.maxMessageBytes} bytes` })
          }
          if (rest.length > 0) {
            pending.push(rest.slice())
            pendingBytes += rest.length
          }
        }
        if (pendingBytes > 0 && !line(join(new Uint8Array(0)))) return
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
