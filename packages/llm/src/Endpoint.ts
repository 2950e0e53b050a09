import { Effect } from "effect"
import { LlmError } from "./LlmError.ts"
import type { ModelConfig } from "./ModelRegistry.ts"

/** How an HTTP adapter finds its endpoint and key (`config` first, then its variables in `config.env`). */
export interface EndpointOptions {
  /** The adapter name, used as the error's `provider`. */
  readonly provider: string
  /** An example spec for the "no model name" error, e.g. `openai:gpt-4.1-mini`. */
  readonly exampleSpec: string
  /** The variable in `config.env` that holds the key when `config.apiKey` is unset, e.g. `OPENAI_API_KEY`. */
  readonly apiKeyEnv: string
  /** The variable in `config.env` that holds the base URL when `config.baseUrl` is unset. */
  readonly baseUrlEnv: string
  /** The base URL when neither `config.baseUrl` nor `baseUrlEnv` is set. */
  readonly defaultBaseUrl: string
  /** Appended to the base URL (trailing slashes of the base removed), e.g. `/chat/completions`. */
  readonly path: string
}

/**
 * The options of an adapter that follows the usual naming: `<PROVIDER>_API_KEY` and
 * `<PROVIDER>_BASE_URL` (the provider's name upper-cased, `-` as `_`), and `<provider>:<model>`
 * as the example spec.
 */
export const conventional = (
  provider: string,
  settings: { readonly exampleModel: string; readonly defaultBaseUrl: string; readonly path: string }
): EndpointOptions => {
  const prefix = provider.toUpperCase().replaceAll("-", "_")
  return {
    provider,
    exampleSpec: `${provider}:${settings.exampleModel}`,
    apiKeyEnv: `${prefix}_API_KEY`,
    baseUrlEnv: `${prefix}_BASE_URL`,
    defaultBaseUrl: settings.defaultBaseUrl,
    path: settings.path
  }
}

/** A model name, key and URL ready for requests. */
export interface Endpoint {
  /** The model name, trimmed (never empty). */
  readonly model: string
  /** Never empty. */
  readonly apiKey: string
  readonly url: string
}

/**
 * The common start of an HTTP adapter's `create`: checks the model name, then finds the key
 * (an empty key counts as missing, so a forgotten one is caught before the first request)
 * and the endpoint URL. Fails with a non-retryable `Configuration` error.
 */
export const resolveEndpoint = (
  model: string,
  config: ModelConfig,
  options: EndpointOptions
): Effect.Effect<Endpoint, LlmError> =>
  Effect.gen(function*() {
    const configurationError = (detail: string) =>
      new LlmError({ reason: "Configuration", provider: options.provider, detail, retryable: false })
    const name = model.trim()
    if (name === "") {
      return yield* configurationError(`no model name: use a spec such as ${options.exampleSpec}`)
    }
    const apiKey = config.apiKey ?? config.env?.[options.apiKeyEnv]
    if (apiKey === undefined || apiKey === "") return yield* configurationError(`${options.apiKeyEnv} is not set`)
    const base = config.baseUrl ?? config.env?.[options.baseUrlEnv] ?? options.defaultBaseUrl
    return { model: name, apiKey, url: `${base.replace(/\/+$/, "")}${options.path}` }
  })
