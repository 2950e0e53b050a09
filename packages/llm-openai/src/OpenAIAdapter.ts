import { Endpoint, Http, type ModelRegistry } from "@dsh/llm"
import { Effect } from "effect"
import { decodeStreamChunk, makeChunkParser, PROVIDER, planRequest } from "./internal/wire.ts"
import { OPENAI_MODEL_IDS } from "./names.ts"

/** Where requests go when neither `config.baseUrl` nor `OPENAI_BASE_URL` is set. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

/**
 * OpenAI-compatible Chat Completions, streamed: OpenAI itself and the servers that copy
 * its API (Ollama, vLLM, llama.cpp, Moonshot, OpenRouter). Settings come from `config`
 * first, then `OPENAI_BASE_URL` / `OPENAI_API_KEY` in `config.env`. Local servers that
 * need no key still need some value in `OPENAI_API_KEY`, so a forgotten key is caught early.
 * A request's `thinking` is sent as `reasoning_effort` (`off` sends none).
 */
export const OpenAIAdapter: ModelRegistry.ModelAdapter = {
  name: PROVIDER,
  description: "OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, Moonshot, OpenRouter)",
  modelIds: OPENAI_MODEL_IDS,
  create: (model, config) =>
    Http.makeSseModel(model, config, {
      endpoint: Endpoint.conventional(PROVIDER, { exampleModel: "gpt-4.1-mini", defaultBaseUrl: DEFAULT_OPENAI_BASE_URL, path: "/chat/completions" }),
      headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
      plan: planRequest,
      decode: decodeStreamChunk,
      makeParser: () => {
        const parser = makeChunkParser()
        return { push: parser.push, end: () => Effect.sync(parser.end) }
      },
      isEndMarker: (event) => event.data.trim() === "[DONE]"
    })
}
