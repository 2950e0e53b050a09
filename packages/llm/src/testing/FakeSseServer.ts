/**
 * A real `node:http` server that answers streaming model requests from a script. The
 * vendor fakes (`@dsh/llm-openai/testing`, `@dsh/llm-anthropic/testing`) supply the wire
 * format; this module owns the sockets, the script, delays, hangs and abort accounting.
 * Plain Promises, so it works from vitest directly and from Effect via `Effect.promise`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** One scripted answer. */
export interface FakeReply {
  /** Streamed in several chunks. */
  readonly text?: string
  /** Each call's arguments are streamed in at least two pieces; the id defaults to a deterministic one. */
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly arguments: unknown }>
  /**
   * Reasoning streamed before the text. Anthropic fake: a `thinking` block per entry (with its
   * `signature`), or a `redacted_thinking` block for `redactedData`. OpenAI fake: the texts as
   * `reasoning_content` deltas.
   */
  readonly reasoning?: ReadonlyArray<{ readonly text?: string; readonly signature?: string; readonly redactedData?: string }>
  /** OpenAI fake: reported as `completion_tokens_details.reasoning_tokens` with `usage`. */
  readonly reasoningTokens?: number
  /** Reported at the end of the stream (OpenAI fake: omitted when unset, like Ollama or llama.cpp). */
  readonly usage?: { readonly input: number; readonly output: number }
  /** HTTP status; at 400 or above the reply is `errorBody` (or a vendor-shaped default) instead of a stream. */
  readonly status?: number
  /** Body for an error status: a string is sent as is, anything else as JSON. */
  readonly errorBody?: unknown
  /** Wait this long before the first byte. */
  readonly delayMs?: number
  /**
   * Never finish until the client aborts. Without text or tool calls not even the headers
   * are sent; with them, those are streamed and then the stream stays open.
   */
  readonly hang?: boolean
  /** After the text and tool calls, send an in-stream error event instead of finishing. */
  readonly streamError?: { readonly type?: string; readonly message: string }
  /**
   * Drop the connection without answering (after `delayMs`): the client sees a network
   * error before the first byte. Not counted in `aborted`, which counts the client's aborts.
   */
  readonly disconnect?: boolean
}

/** A request as the fake received it. */
export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The parsed JSON body (the raw text when it was not JSON). */
  readonly body: unknown
}

/** The script: a `respond` function, or a list of `replies` in order. */
export interface FakeServerOptions {
  /** Computes the reply to the `index`-th request (0-based); takes precedence over `replies`. */
  readonly respond?: (request: FakeRequest, index: number) => FakeReply | Promise<FakeReply>
  /** Replies in order; requests past the end get a 500 "no scripted reply". */
  readonly replies?: ReadonlyArray<FakeReply>
}

/** A running fake; `requests` and `aborted` are live. */
export interface FakeServer {
  /** Base URL to hand to the adapter (e.g. `OPENAI_BASE_URL`). */
  readonly url: string
  /** Every request to the endpoint, in arrival order (retries included). */
  readonly requests: ReadonlyArray<FakeRequest>
  /** How many responses the client abandoned before they finished. */
  readonly aborted: number
  /** Resolves once `aborted` has reached `count` (default 1). */
  readonly waitForAborts: (count?: number) => Promise<void>
  /** Ends open connections (hanging ones included) and stops listening. */
  readonly close: () => Promise<void>
}

/** The vendor-specific half of a fake: where it listens and what its bytes look like. */
export interface FakeWire {
  /** Path prefix of the base URL, e.g. `/v1` for OpenAI, `` for Anthropic. */
  readonly basePath: string
  /** The one endpoint, e.g. `/v1/chat/completions`. */
  readonly endpoint: string
  /** SSE frames (each a full `event:`/`data:` block ending in a blank line): `head` streams content, `tail` finishes it. */
  readonly render: (reply: FakeReply, request: FakeRequest, index: number) => {
    readonly head: ReadonlyArray<string>
    readonly tail: ReadonlyArray<string>
  }
  /** The vendor's error body for an HTTP error status. */
  readonly errorBody: (status: number, message: string) => unknown
}

/** Splits text into pieces of at most `size` code points (none when empty). */
export const chunkText = (text: string, size = 4): Array<string> => {
  const points = Array.from(text)
  const out: Array<string> = []
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""))
  return out
}

/** Splits text into exactly `parts` pieces (some empty when the text is shorter). */
export const splitInParts = (text: string, parts: number): Array<string> => {
  const points = Array.from(text)
  const size = Math.ceil(points.length / parts)
  return Array.from({ length: parts }, (_, i) => points.slice(i * size, (i + 1) * size).join(""))
}

/** The JSON text of scripted tool-call arguments: strings are sent verbatim. */
export const argumentsText = (args: unknown): string => typeof args === "string" ? args : JSON.stringify(args ?? {})

/** An SSE frame; `event` is omitted for data-only streams. */
export const sseFrame = (data: unknown, event?: string): string =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

const sendError = (res: ServerResponse, status: number, body: unknown) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" })
  res.end(text)
}

/** Writes a reply's SSE frames; a hanging one sends only its content and keeps the stream open. */
const streamReply = async (
  res: ServerResponse,
  frames: { readonly head: ReadonlyArray<string>; readonly tail: ReadonlyArray<string> },
  status: number,
  hang: boolean
) => {
  res.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  res.flushHeaders()
  for (const frame of hang ? frames.head : [...frames.head, ...frames.tail]) {
    if (res.destroyed) return
    res.write(frame)
    await tick() // give the client separate reads, as a real network would
  }
  if (!hang && !res.destroyed) res.end()
}

const listenOnLoopback = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })

/** Starts a fake on 127.0.0.1 with an OS-assigned port. */
export const startFakeSseServer = async (wire: FakeWire, options: FakeServerOptions): Promise<FakeServer> => {
  const requests: Array<FakeRequest> = []
  const timers = new Set<NodeJS.Timeout>()
  const waiters: Array<{ count: number; resolve: () => void; reject: (e: Error) => void }> = []
  let aborted = 0
  let closing = false
  /** Responses the fake itself cut off (`disconnect`): their close is not a client abort. */
  const dropped = new WeakSet<ServerResponse>()
  let endpointCalls = 0

  const noteAbort = () => {
    aborted++
    for (const w of [...waiters]) {
      if (aborted >= w.count) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  }

  const sleep = (ms: number, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
      res.once("close", () => {
        clearTimeout(timer)
        timers.delete(timer)
        resolve()
      })
    })

  const reply = async (res: ServerResponse, request: FakeRequest, index: number) => {
    let scripted: FakeReply
    try {
      if (options.respond) scripted = await options.respond(request, index)
      else {
        const next = options.replies?.[index]
        if (next === undefined) {
          const count = options.replies?.length ?? 0
          return sendError(res, 500, wire.errorBody(500, `fake server: no scripted reply for request #${index + 1} (${count} scripted)`))
        }
        scripted = next
      }
    } catch (cause) {
      return sendError(res, 500, wire.errorBody(500, `fake server: respond() failed: ${String(cause)}`))
    }
    if (scripted.delayMs !== undefined && scripted.delayMs > 0) await sleep(scripted.delayMs, res)
    if (res.destroyed) return
    if (scripted.disconnect === true) {
      dropped.add(res)
      res.socket?.destroy()
      return
    }
    const status = scripted.status ?? 200
    if (status >= 400) {
      return sendError(res, status, scripted.errorBody ?? wire.errorBody(status, `fake server: scripted HTTP ${status}`))
    }
    const hasContent = (scripted.text ?? "") !== "" || (scripted.toolCalls ?? []).length > 0
    if (scripted.hang === true && !hasContent) return // no headers either: wait for the abort
    await streamReply(res, wire.render(scripted, request, index), status, scripted.hang === true)
  }

  const server = createServer((req, res) => {
    res.on("close", () => {
      if (!res.writableFinished && !closing && !dropped.has(res)) noteAbort()
    })
    void readBody(req).then((text) => {
      const request: FakeRequest = {
        method: req.method ?? "",
        path: (req.url ?? "").split("?")[0] ?? "",
        headers: { ...req.headers },
        body: parseBody(text)
      }
      if (request.method !== "POST" || request.path !== wire.endpoint) {
        return sendError(res, 404, wire.errorBody(404, `fake server: no route ${request.method} ${request.path}`))
      }
      requests.push(request)
      return reply(res, request, endpointCalls++)
    }).catch((cause: unknown) => {
      if (!res.headersSent && !res.destroyed) sendError(res, 500, wire.errorBody(500, `fake server: ${String(cause)}`))
      else res.destroy()
    })
  })

  await listenOnLoopback(server)
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}${wire.basePath}`,
    requests,
    get aborted() {
      return aborted
    },
    waitForAborts: (count = 1) =>
      aborted >= count
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => waiters.push({ count, resolve, reject })),
    close: () => {
      if (closing) return Promise.resolve()
      closing = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      for (const w of waiters.splice(0)) w.reject(new Error("fake server closed"))
      return new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
  }
}
