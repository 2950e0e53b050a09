import { Endpoint, Http, type ModelRegistry } from "@dsh/llm"
import { decodeStreamEvent, makeEventParser } from "./internal/events.ts"
import { planRequest, PROVIDER } from "./internal/wire.ts"
import { ANTHROPIC_ALIASES, ANTHROPIC_MODEL_IDS } from "./names.ts"

/** Where requests go when neither `config.baseUrl` nor `ANTHROPIC_BASE_URL` is set. */
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"

/** The Messages API version this adapter speaks (sent as `anthropic-version`). */
export const ANTHROPIC_VERSION = "2023-06-01"

/**
 * Anthropic Messages, streamed, with tool use. Settings come from `config` first, then
 * `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY` in `config.env`. `max_tokens` is mandatory
 * on this API: `config.maxOutputTokens`, else the request's, else 8192. A request's
 * `thinking` becomes `thinking: {type: "enabled", budget_tokens}` (low 2048, medium 8192, high
 * 24576 tokens, kept 1024 below `max_tokens`). Thinking blocks go back with their signatures, so
 * thinking stays on through tool loops; what the wire cannot take comes out as `warning` parts.
 */
export const AnthropicAdapter: ModelRegistry.ModelAdapter = {
  name: PROVIDER,
  description: "Anthropic Messages API (Claude), streaming with tool use",
  aliases: ANTHROPIC_ALIASES,
  modelIds: ANTHROPIC_MODEL_IDS,
  create: (model, config) =>
    Http.makeSseModel(model, config, {
      endpoint: Endpoint.conventional(PROVIDER, { exampleModel: "claude-sonnet-4-5", defaultBaseUrl: DEFAULT_ANTHROPIC_BASE_URL, path: "/v1/messages" }),
      headers: (apiKey) => ({ "x-api-key": apiKey, "anthropic-version": ANTHROPIC_VERSION }),
      plan: planRequest,
      decode: decodeStreamEvent,
      makeParser: makeEventParser
    })
}
