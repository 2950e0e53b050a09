import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, type AgentCard } from "@a2a-js/sdk"
import { DefaultAgentCardResolver } from "@a2a-js/sdk/client"
import { Effect } from "effect"
import { type A2aAgentConfig, a2aAgentType, headersOf } from "./A2aAgentConfig.ts"
import { A2aChildError } from "./A2aChildError.ts"
import type { Vocabulary } from "@dsh/subagent"

/** The largest agent card accepted. */
export const MAX_CARD_BYTES = 1024 * 1024

/** Where an agent's card is: its URL when it names a `.json` file, else the well-known path under it. */
export const cardUrlOf = (url: string): string => {
  if (new URL(url).pathname.endsWith(".json")) return url
  return new URL(".well-known/agent-card.json", url.endsWith("/") ? url : `${url}/`).href
}

/** A `fetch` with the agent's headers, every request bounded by `AbortSignal.timeout` and the caller's signal. */
export const boundedFetch = (headers: Readonly<Record<string, string>>, timeoutMs: number, base: typeof fetch = fetch): typeof fetch =>
  (input, init) => {
    const signals = [AbortSignal.timeout(timeoutMs), ...(init?.signal ? [init.signal] : [])]
    const merged = new Headers(init?.headers)
    for (const [k, v] of Object.entries(headers)) if (!merged.has(k)) merged.set(k, v)
    return base(input, { ...init, headers: merged, signal: AbortSignal.any(signals) })
  }

/**
 * A `fetch` whose HTTP error answers (4xx, 5xx) reach the SDK as plain text naming the status:
 * the SDK reads a JSON body with a string `error` (e.g. `{"error":"unauthorized"}`) as a
 * JSON-RPC error and reports "An unexpected error occurred.", losing the status.
 */
export const httpErrorsAsText = (base: typeof fetch): typeof fetch =>
  async (input, init) => {
    const response = await base(input, init)
    if (response.ok) return response
    const body = (await response.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, 200)
    return new Response(`HTTP ${response.status}${body === "" ? "" : ` ${body}`}`, { status: response.status, statusText: response.statusText, headers: { "content-type": "text/plain" } })
  }

const causeOf = (e: unknown): string => {
  if (e instanceof Error) {
    const inner = (e as { cause?: unknown }).cause
    const detail = inner instanceof Error ? `: ${inner.message}` : ""
    return e.name === "TimeoutError" ? "timed out" : `${e.message}${detail}`
  }
  return String(e)
}

/** Reads a response body, refusing one over `limit` bytes (without reading past it). */
const readCapped = async (response: Response, limit: number): Promise<string> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw new Error(`the card is over ${limit} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/** A card read and checked: what the client needs, and the agent type it gives. */
export interface ResolvedA2aAgent {
  readonly agent: A2aAgentConfig
  readonly card: AgentCard
  readonly type: Vocabulary.AgentType
  readonly streaming: boolean
  /** The JSON-RPC endpoint the card names. */
  readonly endpoint: string
}

/**
 * Fetches an agent's card once, bounded by `timeoutMs`, at most 1 MiB, and checks it: a name,
 * and a JSON-RPC interface (the only binding this client speaks). v0.3 cards are translated
 * by the SDK's compatibility layer.
 */
export const resolveA2aAgent = (
  agent: A2aAgentConfig,
  options: { readonly timeoutMs: number; readonly environment: Readonly<Record<string, string | undefined>>; readonly fetch?: typeof fetch | undefined }
): Effect.Effect<ResolvedA2aAgent, A2aChildError> =>
  Effect.gen(function*() {
    const fail = (why: string) => new A2aChildError({ reason: "Card", message: `a2a:${agent.name}: ${why}` })
    const inline = agent.cardJson !== undefined && agent.url === ""
    // An inline card (`agent_card_json`) is named after the file that carries it.
    const url = inline ? `${agent.source ?? "its agent file"} (agent_card_json)` : yield* Effect.try({ try: () => cardUrlOf(agent.url), catch: () => fail(`"${agent.url}" is not a URL`) })
    const get = boundedFetch(headersOf(agent, options.environment), options.timeoutMs, options.fetch)
    const text = inline ? agent.cardJson! : yield* Effect.tryPromise({
      try: async (signal) => {
        // The version header asks a server that speaks both for its v1.0 card (as the SDK's resolver does).
        const response = await get(url, { signal, headers: { accept: "application/json", [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION } })
        if (!response.ok) {
          await response.body?.cancel()
          throw new Error(`HTTP ${response.status} ${response.statusText}`.trim())
        }
        return readCapped(response, MAX_CARD_BYTES)
      },
      catch: (e) => fail(`cannot read its agent card at ${url}: ${causeOf(e)}`)
    })
    const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => fail(`its agent card at ${url} is not JSON`) })
    if (typeof json !== "object" || json === null || Array.isArray(json)) return yield* fail(`its agent card at ${url} is not an object`)
    const card = yield* Effect.try({
      try: () => new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(json),
      catch: (e) => fail(`its agent card at ${url} is invalid: ${causeOf(e)}`)
    })
    if (typeof card.name !== "string" || card.name === "") return yield* fail(`its agent card at ${url} has no name`)
    const jsonRpcs = card.supportedInterfaces.filter((i) => i.protocolBinding.toUpperCase() === "JSONRPC")
    const jsonRpc = jsonRpcs.find((i) => i.protocolVersion === A2A_PROTOCOL_VERSION) ?? jsonRpcs[0]
    if (jsonRpc === undefined) {
      const named = card.supportedInterfaces.map((i) => i.protocolBinding).join(", ")
      return yield* fail(`its agent card names no supported transport (JSONRPC)${named === "" ? "" : `; it offers ${named}`}`)
    }
    return {
      agent,
      card,
      endpoint: jsonRpc.url,
      streaming: card.capabilities?.streaming === true,
      type: a2aAgentType(agent, {
        name: card.name,
        description: card.description ?? "",
        skills: card.skills.map((s) => ({ name: s.name, description: s.description }))
      })
    }
  })
