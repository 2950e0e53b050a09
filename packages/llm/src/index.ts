/**
 * @dsh/llm: the LLM seam. A `LanguageModel` streams text deltas, assembled tool calls and a
 * finish part with usage; adapters register by name in a `ModelRegistry`; `postSse` is the
 * shared HTTP path with bounded retries and abort-on-interrupt.
 */
export * from "./Endpoint.ts"
export * from "./Http.ts"
export * from "./LazyAdapter.ts"
export * from "./LanguageModel.ts"
export * from "./LlmError.ts"
export * from "./ModelRegistry.ts"
