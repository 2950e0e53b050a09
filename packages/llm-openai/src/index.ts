/**
 * @dsh/llm-openai: the `openai` model adapter, for OpenAI and every server that speaks the
 * Chat Completions streaming API (Ollama, vLLM, llama.cpp, Moonshot, OpenRouter).
 * Register it with `ModelRegistry.provide(OpenAIAdapter)`; fixtures live in `./testing`.
 */
export * as names from "./names.ts"
export * as OpenAIAdapter from "./OpenAIAdapter.ts"
