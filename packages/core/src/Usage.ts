/** Token usage of one model call, or summed over a run. */
export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

export const makeUsage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens
})

export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens
})

/** Price per million tokens, in US dollars. */
export interface Pricing {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

export const costOf = (usage: Usage, pricing: Pricing | undefined): number | undefined =>
  pricing === undefined
    ? undefined
    : (usage.inputTokens * pricing.inputPerMillion + usage.outputTokens * pricing.outputPerMillion) / 1_000_000
