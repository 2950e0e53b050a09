import { Schema, Struct } from "effect"

/**
 * Token usage of one model call, or summed over a run. `inputTokens` counts every input token,
 * cached ones included; the cache fields say how many of them the provider read from or wrote
 * to its prompt cache (present only when the provider reported any). A Schema, because every
 * record that carries usage (descriptors, task records, cluster messages, the SDK's wire)
 * decodes it: one declaration, so none of them drops a field the others keep.
 */
export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number,
  // Each present only when the provider reported any.
  ...Struct.map({
    /** Of `inputTokens`: read from the provider's prompt cache. */
    cacheReadTokens: Schema.Number,
    /** Of `inputTokens`: written to the provider's prompt cache. */
    cacheWriteTokens: Schema.Number,
    /** Of `outputTokens`: spent on reasoning. */
    reasoningTokens: Schema.Number
  }, Schema.optional)
})
export type Usage = typeof Usage.Type

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/** Usage from token counts; cache counts of zero are left out. */
export const make = (inputTokens: number, outputTokens: number, cache?: { readonly read?: number; readonly write?: number }): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  ...((cache?.read ?? 0) > 0 ? { cacheReadTokens: cache!.read } : {}),
  ...((cache?.write ?? 0) > 0 ? { cacheWriteTokens: cache!.write } : {})
})

export const addUsage = (a: Usage, b: Usage): Usage => {
  const read = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0)
  const write = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0)
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0)
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {})
  }
}

/** Price per million tokens, in US dollars. Cache prices default to the input price. */
export interface Pricing {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
  readonly cacheReadPerMillion?: number | undefined
  readonly cacheWritePerMillion?: number | undefined
}

/** The cost of `usage` in US dollars at `pricing`; undefined without a price. */
export const costOf = (usage: Usage, pricing: Pricing | undefined): number | undefined => {
  if (pricing === undefined) return undefined
  const read = usage.cacheReadTokens ?? 0
  const write = usage.cacheWriteTokens ?? 0
  const uncached = Math.max(0, usage.inputTokens - read - write)
  return (
    uncached * pricing.inputPerMillion +
    read * (pricing.cacheReadPerMillion ?? pricing.inputPerMillion) +
    write * (pricing.cacheWritePerMillion ?? pricing.inputPerMillion) +
    usage.outputTokens * pricing.outputPerMillion
  ) / 1_000_000
}

/** Sums costs where either is known: a run priced in part still has a (partial) cost. */
export const addCost = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : a + b

/** Prices by model spec (`anthropic:claude-sonnet-4-5`): what cost is computed from. */
export type PriceLookup = (modelSpec: string) => Pricing | undefined
