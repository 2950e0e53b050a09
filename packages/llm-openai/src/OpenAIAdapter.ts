import { Endpoint, Http, LanguageModel, type ModelRegistry } from "@dsh/llm"
import { Effect, Stream } from "effect"
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
    Effect.gen(function*() {
      const { apiKey, model: name, url } = yield* Endpoint.resolveEndpoint(model, config, {
        provider: PROVIDER,
        exampleSpec: "openai:gpt-4.1-mini",
        apiKeyEnv: "OPENAI_API_KEY",
        baseUrlEnv: "OPENAI_BASE_URL",
        defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
        path: "/chat/completions"
      })
      return LanguageModel.make({
        provider: PROVIDER,
        model: name,
        stream: (request) =>
          Stream.suspend(() => {
            const parser = makeChunkParser()
            const plan = planRequest(name, request, { maxOutputTokens: config.maxOutputTokens })
            const warnings = Stream.fromIterable(plan.warnings.map((message): LanguageModel.StreamPart => ({ type: "warning", message })))
            return Stream.concat(warnings, Http.postSse({
              provider: PROVIDER,
              url,
              headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" },
              body: plan.body
            }).pipe(
              Stream.takeWhile((event) => event.data.trim() !== "[DONE]"),
              Stream.mapEffect((event) =>
                Http.parseJsonEvent(PROVIDER, event.data).pipe(
                  Effect.flatMap(decodeStreamChunk),
                  Effect.flatMap(parser.push)
                )
              ),
              Stream.concat(Stream.sync(() => parser.end())),
              Stream.flatMap((parts) => Stream.fromIterable(parts))
            ))
          })
      })
    })
}
