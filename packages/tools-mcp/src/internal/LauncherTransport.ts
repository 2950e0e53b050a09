import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import type { Readable, Writable } from "node:stream"
import { LineFramer } from "@dsh/subprocess"

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024

/**
 * The MCP SDK's `Transport` over a child that `@dsh/subprocess`'s launcher started (so the
 * server has a scrubbed environment, its own process group, and dies with us): newline-framed
 * JSON-RPC on its stdin and stdout, seen as Node streams through `childNodeStdio`. Closing the
 * transport does not stop the process; its scope does.
 */
export class LauncherTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined
  private closed = false
  private readonly child: { readonly stdin: Writable; readonly stdout: Readable }

  constructor(child: { readonly stdin: Writable; readonly stdout: Readable }) {
    this.child = child
  }

  start(): Promise<void> {
    const framer = new LineFramer.LineFramer(MAX_MESSAGE_BYTES)
    // The framer hands over non-blank lines only.
    const deliver = (text: string) => {
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        this.onerror?.(new Error(`the MCP server wrote a line that is not JSON: ${text.slice(0, 80)}`))
        return
      }
      // The client checks each message's shape; here only that it is JSON-RPC 2.0.
      if (typeof message === "object" && message !== null && (message as { jsonrpc?: unknown }).jsonrpc === "2.0") this.onmessage?.(message as JSONRPCMessage)
      else this.onerror?.(new Error(`the MCP server wrote JSON that is not JSON-RPC 2.0: ${text.slice(0, 80)}`))
    }
    this.child.stdout.on("data", (chunk: Uint8Array) => {
      for (const event of framer.push(chunk)) {
        if (event._tag === "Oversized") this.onerror?.(new Error(`the MCP server wrote a message larger than ${MAX_MESSAGE_BYTES} bytes`))
        else deliver(event.text)
      }
    })
    this.child.stdout.once("end", () => void this.close())
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child.stdin
    if (this.closed) return Promise.reject(new Error("the MCP server's stdin is closed"))
    return new Promise((resolve, reject) => stdin.write(`${JSON.stringify(message)}\n`, (e) => (e ? reject(e) : resolve())))
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    this.onclose?.()
    return Promise.resolve()
  }
}
