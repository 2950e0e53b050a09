import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"

/** The largest line accepted: a peer sending more is answered with an error and the line dropped. */
const MAX_LINE_BYTES = 8 * 1024 * 1024

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

/**
 * MCP over newline-delimited JSON on a byte stream pair. The SDK's own stdio server transport
 * neither reports the end of its input nor answers a malformed line; this one does both: a line
 * that is not JSON, or not a JSON-RPC message, gets a JSON-RPC error response (id `null`, or the
 * line's id when it has one) and the connection goes on; the input's end closes the transport.
 * Either side may use it: a client over a `PassThrough` pair in tests, as the README shows.
 */
export const make = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Transport => {
  let buffer = Buffer.alloc(0)
  let closed = false
  const transport: Transport = {
    start: async () => {
      input.on("data", onData)
      input.on("end", close)
      input.on("close", close)
      input.on("error", (error: Error) => transport.onerror?.(error))
    },
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return resolve()
        output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()))
      }),
    close: async () => close()
  }

  function close() {
    if (closed) return
    closed = true
    input.off("data", onData)
    transport.onclose?.()
  }

  const answer = (code: number, message: string, id: unknown) => {
    const validId = typeof id === "string" || typeof id === "number" ? id : null
    output.write(`${JSON.stringify({ jsonrpc: "2.0", id: validId, error: { code, message } })}\n`)
  }

  const handleLine = (line: string) => {
    if (line.trim() === "") return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return answer(PARSE_ERROR, "Parse error: the line is not JSON (send one JSON-RPC 2.0 message per line)", null)
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      const id = typeof json === "object" && json !== null && "id" in json ? (json as { id: unknown }).id : null
      return answer(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message (it needs jsonrpc: \"2.0\" and a string method, or a result or error for an id)", id)
    }
    transport.onmessage?.(parsed.data as JSONRPCMessage)
  }

  function onData(chunk: Buffer | string) {
    buffer = Buffer.concat([buffer, typeof chunk === "string" ? Buffer.from(chunk) : chunk])
    for (;;) {
      const end = buffer.indexOf(10)
      if (end === -1) break
      const line = buffer.toString("utf8", 0, end).replace(/\r$/, "")
      buffer = buffer.subarray(end + 1)
      handleLine(line)
    }
    if (buffer.length > MAX_LINE_BYTES) {
      buffer = Buffer.alloc(0)
      answer(INVALID_REQUEST, `Invalid Request: a message is longer than ${MAX_LINE_BYTES} bytes`, null)
    }
  }

  return transport
}
