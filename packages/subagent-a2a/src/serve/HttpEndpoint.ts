import { A2A_VERSION_HEADER, type AgentCard, Extensions, formatSSEErrorEvent, formatSSEEvent, HTTP_EXTENSION_HEADER, SSE_HEADERS } from "@a2a-js/sdk"
import { type A2ARequestHandler, JsonRpcTransportHandler, ServerCallContext, UnauthenticatedUser } from "@a2a-js/sdk/server"
import { LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3"
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server"
import { timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { isLegacyRequest, legacyAgentCard } from "./LegacyCard.ts"

/** The largest JSON-RPC request body accepted. */
const MAX_BODY_BYTES = 4 * 1024 * 1024

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((ok, fail) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (c: Buffer) => {
      size += c.byteLength
      if (size > MAX_BODY_BYTES) {
        req.destroy()
        fail(new Error("request body too large"))
      } else chunks.push(c)
    })
    req.on("end", () => ok(Buffer.concat(chunks).toString("utf8")))
    req.on("error", fail)
  })

/** The extensions a request activates: those it asks for (`A2A-Extensions`, or v0.3's `X-A2A-Extensions`) that the card offers. */
const activatedExtensions = (req: IncomingMessage, offered: ReadonlyArray<string>): Extensions => {
  const header = (name: string) => {
    const v = req.headers[name.toLowerCase()]
    return Array.isArray(v) ? v.join(",") : v
  }
  const asked = [...Extensions.parseServiceParameter(header(HTTP_EXTENSION_HEADER)), ...Extensions.parseServiceParameter(header(LEGACY_HTTP_EXTENSION_HEADER))]
  return offered.filter((uri) => asked.includes(uri))
}

const sendJson = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(value))
}

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.byteLength === b.byteLength && timingSafeEqual(a, b)
}

/** A listening A2A endpoint: its bound URL, and how to close it. */
export interface A2aEndpoint {
  readonly url: string
  readonly close: () => Promise<void>
}

/**
 * An A2A endpoint on node:http with the SDK's JSON-RPC transport handler: the card at
 * `/.well-known/agent-card.json` (built once the port is bound, so it carries the real URL),
 * JSON-RPC at `/` (answers as JSON, streams as SSE). With `token`, every request but the card's
 * needs `Authorization: Bearer <token>` (else 401). v0.3 clients (an `A2A-Version` of 0.x, or no
 * header: the card, and v0.3 method names) get the v0.3 card and the SDK's v0.3 JSON-RPC handler.
 */
export const listenA2a = async (options: {
  readonly host: string
  readonly port: number
  readonly token?: string | undefined
  /** Builds the request handler once the URL is known. */
  readonly handler: (url: string) => { readonly card: AgentCard; readonly requests: A2ARequestHandler }
}): Promise<A2aEndpoint> => {
  let transport: JsonRpcTransportHandler | undefined
  let legacyTransport: LegacyJsonRpcTransportHandler | undefined
  let card: AgentCard | undefined
  let legacyCard: Record<string, unknown> | undefined
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    const version = req.headers[A2A_VERSION_HEADER.toLowerCase()]
    const requested = typeof version === "string" ? version : undefined
    if (req.method === "GET" && path === "/.well-known/agent-card.json") {
      // Like the SDK's card handler: no A2A-Version header means a v0.3 client.
      return sendJson(res, 200, requested === undefined || /^0\./.test(requested.trim()) ? legacyCard : card, { vary: A2A_VERSION_HEADER })
    }
    if (options.token !== undefined) {
      const auth = req.headers.authorization ?? ""
      if (!auth.startsWith("Bearer ") || !sameToken(auth.slice(7), options.token)) {
        return sendJson(res, 401, { error: "a bearer token is required" }, { "www-authenticate": "Bearer" })
      }
    }
    if (req.method !== "POST" || path !== "/") return sendJson(res, 404, { error: "not found" })
    let body: unknown
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      return sendJson(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
    }
    const method = typeof body === "object" && body !== null && "method" in body ? (body as { method: unknown }).method : undefined
    const legacy = isLegacyRequest(requested, method)
    const activated = activatedExtensions(req, (card?.capabilities?.extensions ?? []).map((e) => e.uri))
    const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: requested ?? (legacy ? "0.3" : "1.0"), requestedExtensions: activated })
    for (const uri of activated) context.addActivatedExtension(uri)
    // The response names the extensions this request activated, as the spec asks.
    if (activated.length > 0) res.setHeader(legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER, Extensions.toServiceParameter(activated))
    const id = typeof body === "object" && body !== null && "id" in body ? (body as { id: unknown }).id : null
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError
    let answer: unknown
    try {
      answer = await (legacy ? legacyTransport! : transport!).handle(body as Record<string, unknown>, context)
    } catch (e) {
      return sendJson(res, 200, { jsonrpc: "2.0", id, error: mapError(e) })
    }
    if (typeof (answer as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") return sendJson(res, 200, answer)
    res.writeHead(200, SSE_HEADERS)
    // A client that goes away ends our reading of the stream (the task itself goes on, or is cancelled by CancelTask).
    const stream = answer as AsyncGenerator<unknown>
    res.on("close", () => void stream.return(undefined))
    try {
      for await (const event of stream) res.write(formatSSEEvent(event))
    } catch (e) {
      if (!res.writableEnded) res.write(formatSSEErrorEvent({ jsonrpc: "2.0", id, error: mapError(e) }))
    } finally {
      if (!res.writableEnded) res.end()
    }
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" })
      else res.end()
    })
  })
  await new Promise<void>((ok, fail) => {
    server.once("error", fail)
    server.listen(options.port, options.host, () => ok())
  })
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}/`
  const built = options.handler(url)
  card = built.card
  legacyCard = legacyAgentCard(built.card, url, options.token !== undefined)
  transport = new JsonRpcTransportHandler(built.requests)
  legacyTransport = new LegacyJsonRpcTransportHandler(built.requests)
  return {
    url,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      })
  }
}
