/**
 * @dsh/llm-anthropic: the `anthropic` model adapter (Messages API, streaming, tool use).
 * Register it with `ModelRegistry.provide(AnthropicAdapter)`; fixtures live in `./testing`.
 */
export * as AnthropicAdapter from "./AnthropicAdapter.ts"
export * as names from "./names.ts"
