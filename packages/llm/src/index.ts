/**
 * @dsh/llm: the LLM seam. A `LanguageModel` streams text deltas, assembled tool calls and a
 * finish part with usage; adapters register by name in a `ModelRegistry`; `postSse` is the
 * shared HTTP path with bounded retries and abort-on-interrupt, and `makeSseModel` the model
 * an SSE-streaming adapter builds on it.
 */
export * as Endpoint from "./Endpoint.ts"
export * as Http from "./Http.ts"
export * as LanguageModel from "./LanguageModel.ts"
export * as LazyAdapter from "./LazyAdapter.ts"
export * as LlmError from "./LlmError.ts"
export * as ModelRegistry from "./ModelRegistry.ts"
export * as ModelSpec from "./ModelSpec.ts"
