import type * as acp from "@agentclientprotocol/sdk/unstable"
import { type Usage } from "@dsh/core"

/** Token counts read from one place, and whether they split input from output. */
interface Reading {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const count = (r: Record<string, unknown>, ...keys: ReadonlyArray<string>): number | undefined => {
  for (const k of keys) {
    const v = r[k]
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v
  }
  return undefined
}

/** Token counts in a vendor's own shape (camelCase or snake_case, OpenAI or Anthropic names). */
export const tokensIn = (value: unknown): Reading | undefined => {
  if (!isRecord(value)) return undefined
  const input = count(value, "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
  const output = count(value, "outputTokens", "output_tokens", "completionTokens", "completion_tokens")
  const total = count(value, "totalTokens", "total_tokens")
  if (input === undefined && output === undefined && total === undefined) return undefined
  const i = input ?? 0
  const o = output ?? 0
  return { inputTokens: i, outputTokens: o, totalTokens: Math.max(total ?? 0, i + o) }
}

/** Token counts a `_meta` carries: `quota.token_count` (Gemini CLI, Codex), `usage` or `tokenUsage`. */
export const tokensInMeta = (meta: unknown): Reading | undefined => {
  if (!isRecord(meta)) return undefined
  const quota = isRecord(meta.quota) ? meta.quota : undefined
  return tokensIn(quota?.token_count) ?? tokensIn(quota?.tokenCount) ?? tokensIn(meta.usage) ?? tokensIn(meta.tokenUsage)
}

const add = (a: Reading | undefined, b: Reading): Reading =>
  a === undefined ? b : { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, totalTokens: a.totalTokens + b.totalTokens }

/** What a turn used, the source it came from, and what it cost when the child said. */
export interface TurnUsage {
  readonly usage: Usage.Usage
  /** US dollars, from the child's running cost (`usage_update.cost`). */
  readonly cost?: number | undefined
  readonly source: "response" | "response-meta" | "update-meta" | "update" | "none"
}

/**
 * Where an ACP child's usage comes from, most complete first (the first that has counts wins):
 * 1. the prompt response's `usage` (input, output, total; per turn);
 * 2. token counts in the prompt response's `_meta` (`quota.token_count`, `usage`);
 * 3. token counts in the `_meta` of the turn's `usage_update`s, summed;
 * 4. the turn's `usage_update`s' `used`, summed and counted as input tokens: each update is read
 *    as one model call that had `used` tokens in its context (Codex sends one per model
 *    response), which is what that call processed; the update does not split input from output.
 * Cost is the growth of `usage_update.cost` (a running session total, in USD) over the turn;
 * readings while a session is loaded only set where the total starts.
 */
export const makeUsageMeter = () => {
  let cost: number | undefined
  let costAtStart: number | undefined
  let fromMeta: Reading | undefined
  let fromUsed = 0
  let updates = 0

  const costOf = (update: acp.UsageUpdate): number | undefined =>
    update.cost != null && update.cost.currency.toUpperCase() === "USD" && Number.isFinite(update.cost.amount) ? update.cost.amount : undefined

  return {
    /** A new turn starts: counts start over; the running cost goes on. */
    start: (): void => {
      fromMeta = undefined
      fromUsed = 0
      updates = 0
      costAtStart = cost
    },
    /** A `usage_update` during a turn. */
    update: (u: acp.UsageUpdate): void => {
      updates++
      const meta = tokensInMeta(u._meta)
      if (meta !== undefined) fromMeta = add(fromMeta, meta)
      if (Number.isFinite(u.used) && u.used > 0) fromUsed += u.used
      cost = costOf(u) ?? cost
    },
    /** A `usage_update` replayed by `session/load`: only where the running cost stands. */
    baseline: (u: acp.UsageUpdate): void => {
      cost = costOf(u) ?? cost
    },
    /** The turn's usage, from the answer (if any) and the updates seen. */
    settle: (response: acp.PromptResponse | undefined): TurnUsage => {
      const turnCost = cost === undefined ? undefined : costAtStart === undefined || cost < costAtStart ? cost : cost - costAtStart
      const priced = turnCost === undefined || turnCost <= 0 ? {} : { cost: turnCost }
      const reported = response?.usage == null ? undefined : tokensIn(response.usage)
      if (reported !== undefined && reported.totalTokens > 0) return { usage: reported, ...priced, source: "response" }
      const meta = tokensInMeta(response?._meta)
      if (meta !== undefined && meta.totalTokens > 0) return { usage: meta, ...priced, source: "response-meta" }
      if (fromMeta !== undefined && fromMeta.totalTokens > 0) return { usage: fromMeta, ...priced, source: "update-meta" }
      if (updates > 0 && fromUsed > 0) return { usage: { inputTokens: fromUsed, outputTokens: 0, totalTokens: fromUsed }, ...priced, source: "update" }
      return { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, ...priced, source: "none" }
    }
  }
}

export type UsageMeter = ReturnType<typeof makeUsageMeter>
