import { type Messages, Usage } from "@dsh/core"
import type { LanguageModel, LlmError } from "@dsh/llm"
import { badResponse, describe, toLlmError } from "./errors.ts"

type Metadata = Readonly<Record<string, unknown>>
type Loose = Readonly<Record<string, unknown>>

const FINISH: Readonly<Record<string, LanguageModel.FinishReason>> = {
  stop: "stop",
  length: "length",
  "content-filter": "content-filter",
  "tool-calls": "tool-calls"
}

/** V2 sends the finish reason as a string; V3 and V4 as `{ unified, raw }`. */
const finishReason = (raw: unknown): LanguageModel.FinishReason => {
  const unified = typeof raw === "string" ? raw : typeof raw === "object" && raw !== null ? (raw as Loose)["unified"] : undefined
  return (typeof unified === "string" ? FINISH[unified] : undefined) ?? "other"
}

const count = (value: unknown): number | undefined | "bad" =>
  value === undefined || value === null ? undefined : typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : "bad"

/**
 * V2 usage is flat (`inputTokens`, `cachedInputTokens`, `reasoningTokens`); V3 and V4 nest it
 * (`inputTokens: { total, noCache, cacheRead, cacheWrite }`, `outputTokens: { total, text, reasoning }`).
 * A negative or non-numeric count is a bad response, not a number to add up.
 */
export const toUsage = (usage: unknown): Usage.Usage | string => {
  if (typeof usage !== "object" || usage === null) return "finish part without usage"
  const u = usage as Loose
  const nested = typeof u["inputTokens"] === "object" || typeof u["outputTokens"] === "object"
  const input = (nested ? u["inputTokens"] : undefined) as Loose | undefined
  const output = (nested ? u["outputTokens"] : undefined) as Loose | undefined
  const fields = nested
    ? {
      total: count(input?.["total"]),
      noCache: count(input?.["noCache"]),
      read: count(input?.["cacheRead"]),
      write: count(input?.["cacheWrite"]),
      out: count(output?.["total"]),
      text: count(output?.["text"]),
      reasoning: count(output?.["reasoning"])
    }
    : {
      total: count(u["inputTokens"]),
      noCache: undefined,
      read: count(u["cachedInputTokens"]),
      write: undefined,
      out: count(u["outputTokens"]),
      text: undefined,
      reasoning: count(u["reasoningTokens"])
    }
  const bad = Object.entries(fields).find(([, v]) => v === "bad")
  if (bad !== undefined) return `invalid usage (${bad[0]}): ${JSON.stringify(usage).slice(0, 200)}`
  const n = fields as { readonly [K in keyof typeof fields]: number | undefined }
  const inputTokens = n.total ?? (n.noCache ?? 0) + (n.read ?? 0) + (n.write ?? 0)
  const outputTokens = n.out ?? (n.text ?? 0) + (n.reasoning ?? 0)
  const base = Usage.make(inputTokens, outputTokens, { read: n.read ?? 0, write: n.write ?? 0 })
  return (n.reasoning ?? 0) > 0 ? { ...base, reasoningTokens: n.reasoning } : base
}

const mergeMetadata = (a: Metadata | undefined, b: unknown): Metadata | undefined =>
  typeof b !== "object" || b === null ? a : { ...a, ...(b as Metadata) }

const warningText = (w: unknown): string => {
  if (typeof w !== "object" || w === null) return String(w)
  const o = w as Loose
  const what = [o["feature"], o["setting"], o["tool"] === undefined ? undefined : JSON.stringify(o["tool"]), o["details"], o["message"]]
    .filter((x) => typeof x === "string" && x !== "")
  return `${String(o["type"] ?? "warning")}: ${what.join(": ")}`
}

interface ToolInput {
  name: string
  input: string
  ended: boolean
}

export interface Translator {
  /** One AI SDK stream part → the dsh parts it completes, or the failure it is. */
  readonly push: (part: unknown) => ReadonlyArray<LanguageModel.StreamPart> | LlmError.LlmError
  /** After the stream closed: a stream without `finish` is a failed call, not a clean stop. */
  readonly end: () => ReadonlyArray<LanguageModel.StreamPart> | LlmError.LlmError
}

const str = (o: Loose, key: string): string | undefined => typeof o[key] === "string" ? (o[key] as string) : undefined

/**
 * Turns AI SDK stream parts (the same names in V2, V3 and V4) into dsh parts: text deltas pass
 * through, reasoning is streamed as deltas and then kept whole with its metadata, tool input
 * deltas are assembled into one `tool-call` (or a whole `tool-call` part is taken as it is).
 * Parts dsh has no use for (`source`, `raw`, `response-metadata`, provider-executed tools) are skipped.
 */
export const makeTranslator = (provider: string, reasoningProvider: string, now: () => number): Translator => {
  const reasoning = new Map<string, { text: string; metadata: Metadata | undefined }>()
  const tools = new Map<string, ToolInput>()
  const called = new Set<string>()
  let finished = false
  const malformed = (part: unknown) => badResponse(provider, `malformed stream part: ${JSON.stringify(part)?.slice(0, 200)}`)

  const pendingCalls = (): Array<LanguageModel.StreamPart> => {
    const out: Array<LanguageModel.StreamPart> = []
    for (const [id, t] of tools) {
      if (called.has(id)) continue
      called.add(id)
      out.push({ type: "tool-call", call: { id, name: t.name, arguments: t.input } })
    }
    tools.clear()
    return out
  }

  const push = (raw: unknown): ReadonlyArray<LanguageModel.StreamPart> | LlmError.LlmError => {
    if (typeof raw !== "object" || raw === null || typeof (raw as Loose)["type"] !== "string") return malformed(raw)
    const part = raw as Loose
    switch (part["type"]) {
      case "text-delta": {
        const delta = str(part, "delta")
        return delta === undefined ? malformed(raw) : delta === "" ? [] : [{ type: "text-delta", text: delta }]
      }
      case "reasoning-start": {
        const id = str(part, "id")
        if (id === undefined) return malformed(raw)
        reasoning.set(id, { text: "", metadata: mergeMetadata(undefined, part["providerMetadata"]) })
        return []
      }
      case "reasoning-delta": {
        const id = str(part, "id")
        const delta = str(part, "delta")
        if (id === undefined || delta === undefined) return malformed(raw)
        const r = reasoning.get(id) ?? { text: "", metadata: undefined }
        r.text += delta
        r.metadata = mergeMetadata(r.metadata, part["providerMetadata"])
        reasoning.set(id, r)
        return delta === "" ? [] : [{ type: "reasoning-delta", text: delta }]
      }
      case "reasoning-end": {
        const id = str(part, "id")
        if (id === undefined) return malformed(raw)
        const r = reasoning.get(id) ?? { text: "", metadata: undefined }
        reasoning.delete(id)
        const metadata = mergeMetadata(r.metadata, part["providerMetadata"])
        const whole: Messages.ReasoningPart = {
          type: "reasoning",
          text: r.text,
          provider: reasoningProvider,
          ...(metadata === undefined ? {} : { providerMetadata: metadata })
        }
        return [{ type: "reasoning", part: whole }]
      }
      case "tool-input-start": {
        const id = str(part, "id")
        const name = str(part, "toolName")
        if (id === undefined || name === undefined) return malformed(raw)
        if (part["providerExecuted"] !== true) tools.set(id, { name, input: "", ended: false })
        return []
      }
      case "tool-input-delta": {
        const id = str(part, "id")
        const delta = str(part, "delta")
        if (id === undefined || delta === undefined) return malformed(raw)
        const t = tools.get(id)
        if (t !== undefined) t.input += delta
        return []
      }
      case "tool-input-end": {
        const t = tools.get(str(part, "id") ?? "")
        if (t !== undefined) t.ended = true
        return []
      }
      case "tool-call": {
        const id = str(part, "toolCallId")
        const name = str(part, "toolName")
        const input = part["input"]
        if (id === undefined || name === undefined) return malformed(raw)
        tools.delete(id)
        if (part["providerExecuted"] === true || called.has(id)) return []
        called.add(id)
        const args = typeof input === "string" ? input : JSON.stringify(input ?? {})
        return [{ type: "tool-call", call: { id, name, arguments: args } }]
      }
      case "stream-start": {
        const warnings = Array.isArray(part["warnings"]) ? part["warnings"] : []
        return warnings.map((w) => ({ type: "warning" as const, message: warningText(w) }))
      }
      case "file":
        return [{ type: "warning", message: `dropped a ${String(part["mediaType"] ?? "file")} the model produced: dsh keeps no model-made files` }]
      case "error":
        return toLlmError(provider, part["error"], now()).error
      case "finish": {
        const usage = toUsage(part["usage"])
        if (typeof usage === "string") return badResponse(provider, usage)
        finished = true
        // Tool input streamed without a closing `tool-call` part still is a call.
        return [...pendingCalls(), { type: "finish", reason: finishReason(part["finishReason"]), usage }]
      }
      default:
        return []
    }
  }

  return {
    push,
    end: () => finished ? [] : badResponse(provider, "the stream ended without a finish part")
  }
}

export { describe }
