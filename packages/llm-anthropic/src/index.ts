/**
 * @dsh/llm-anthropic: the `anthropic` model adapter (Messages API, streaming, tool use).
 * Register it with `ModelRegistry.provide(AnthropicAdapter)`; fixtures live in `./testing`.
 */
export * from "./AnthropicAdapter.ts"
export * from "./names.ts"
