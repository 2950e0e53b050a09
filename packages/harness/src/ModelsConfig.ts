import type { Usage } from "@dsh/core"
import { type ModelRegistry, ModelSpec } from "@dsh/llm"
import { Effect } from "effect"
import { type ConfigError, configError } from "./ConfigError.ts"

/**
 * The model settings of dsh's `config.toml`:
 *
 * ```toml
 * [models]                      # aliases; they win over the adapters' own (sonnet, opus, haiku)
 * fast = "openai:gpt-4.1-mini"
 * sonnet = "anthropic:claude-sonnet-4-5"
 *
 * [subagents]
 * model = "haiku"               # children's model unless their call or agent names one
 *
 * [agents.reviewer]             # one agent type's own model and credentials
 * model = "openai:gpt-4.1"
 * api_key_env = "REVIEWER_KEY"  # the variable holding its key (the main one when unset)
 * base_url = "https://…/v1"     # its endpoint (the main one when unset)
 *
 * [pricing."anthropic:claude-sonnet-4-5"]   # US dollars per million tokens
 * input = 3
 * output = 15
 * cache_read = 0.3              # optional, default: input
 * cache_write = 3.75            # optional, default: input
 * ```
 */
export interface ModelsConfig {
  /** `[models]`: alias → model spec. */
  readonly aliases: Readonly<Record<string, string>>
  /** `[subagents] model`: the default model of children (`inherit`: their parent's). */
  readonly subagentModel?: string | undefined
  /** `[pricing."<spec>"]`, keyed as written (see `checkModelsConfig` for the canonical keys). */
  readonly pricing: Readonly<Record<string, Usage.Pricing>>
  /** `[agents.<name>]`: agent types' own model and credentials, over the main profile. */
  readonly agents?: Readonly<Record<string, AgentModelProfile>> | undefined
}

/**
 * One agent type's model profile (the seed's per-agent auth): what it sets wins, what it leaves
 * unset comes from the main profile, so the main credentials stay the fallback.
 */
export interface AgentModelProfile {
  readonly model?: string | undefined
  /** The environment variable that holds this agent's API key. */
  readonly apiKeyEnv?: string | undefined
  readonly baseUrl?: string | undefined
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const decodeAgentProfiles = (raw: unknown, fail: (key: string, what: string) => undefined): Record<string, AgentModelProfile> => {
  const out: Record<string, AgentModelProfile> = {}
  if (raw === undefined) return out
  if (!isRecord(raw)) {
    fail("[agents]", "must hold tables such as [agents.reviewer]")
    return out
  }
  for (const [name, entry] of Object.entries(raw)) {
    const key = `[agents.${name}]`
    if (!isRecord(entry)) {
      fail(key, "must be a table with model, api_key_env or base_url")
      continue
    }
    const text = (field: string): string | undefined => {
      const value = entry[field]
      if (value === undefined) return undefined
      if (typeof value !== "string" || value.trim() === "") return fail(`${key} ${field}`, "must be a non-empty string")
      return value.trim()
    }
    const model = text("model")
    const apiKeyEnv = text("api_key_env")
    const baseUrl = text("base_url")
    if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) fail(`${key} api_key_env`, `= "${apiKeyEnv}" is not an environment variable name`)
    if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) fail(`${key} base_url`, `= "${baseUrl}" must be an http(s) URL`)
    out[name] = { ...(model === undefined ? {} : { model }), ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }), ...(baseUrl === undefined ? {} : { baseUrl }) }
  }
  return out
}

/** The largest price accepted, in US dollars per million tokens. */
export const MAX_PRICE_PER_MILLION = 100_000

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const PRICE_KEYS = { input: "inputPerMillion", output: "outputPerMillion", cache_read: "cacheReadPerMillion", cache_write: "cacheWritePerMillion" } as const

/**
 * Reads `[models]`, `[subagents] model` and `[pricing.*]` from a parsed config table; `fail`
 * records the first bad key (see `decodeHarnessConfig`).
 */
export const decodeModelsConfig = (raw: Readonly<Record<string, unknown>>, fail: (key: string, what: string) => undefined): ModelsConfig => {
  const aliases: Record<string, string> = {}
  const models = raw.models
  if (models !== undefined && !isRecord(models)) fail("[models]", "must be a table of alias = \"model spec\"")
  for (const [name, value] of Object.entries(isRecord(models) ? models : {})) {
    const problem = ModelSpec.checkAliasName(name)
    if (problem !== undefined) fail(`[models] ${name}`, `is not allowed: ${problem}`)
    else if (typeof value !== "string" || value.trim() === "") fail(`[models] ${name}`, "must be a model spec (a string such as \"anthropic:claude-sonnet-4-5\")")
    else aliases[name] = value.trim()
  }
  const subagents = raw.subagents
  if (subagents !== undefined && !isRecord(subagents)) fail("[subagents]", "must be a table")
  const model = isRecord(subagents) ? subagents.model : undefined
  if (model !== undefined && (typeof model !== "string" || model.trim() === "")) fail("[subagents] model", "must be a model spec, an alias or \"inherit\"")
  const pricing: Record<string, Usage.Pricing> = {}
  const prices = raw.pricing
  if (prices !== undefined && !isRecord(prices)) fail("[pricing]", "must hold tables such as [pricing.\"openai:gpt-4.1\"]")
  for (const [spec, entry] of Object.entries(isRecord(prices) ? prices : {})) {
    const key = `[pricing."${spec}"]`
    if (!isRecord(entry)) {
      fail(key, "must be a table with input and output (US dollars per million tokens)")
      continue
    }
    const read: Partial<Record<(typeof PRICE_KEYS)[keyof typeof PRICE_KEYS], number>> = {}
    for (const [name, value] of Object.entries(entry)) {
      if (!Object.hasOwn(PRICE_KEYS, name)) {
        fail(`${key} ${name}`, `is not a price; use ${Object.keys(PRICE_KEYS).join(", ")}`)
        continue
      }
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_PRICE_PER_MILLION) {
        fail(`${key} ${name}`, `= ${JSON.stringify(value)} is not allowed: it must be a number from 0 to ${MAX_PRICE_PER_MILLION} (US dollars per million tokens)`)
        continue
      }
      read[PRICE_KEYS[name as keyof typeof PRICE_KEYS]] = value
    }
    if (read.inputPerMillion === undefined || read.outputPerMillion === undefined) {
      fail(key, "needs both input and output (US dollars per million tokens)")
      continue
    }
    pricing[spec] = { ...read, inputPerMillion: read.inputPerMillion, outputPerMillion: read.outputPerMillion }
  }
  const agents = decodeAgentProfiles(raw.agents, fail)
  return { aliases, subagentModel: typeof model === "string" ? model.trim() : undefined, pricing, ...(Object.keys(agents).length === 0 ? {} : { agents }) }
}

/** Model settings checked against a registry: every spec maps to an adapter, prices keyed canonically. */
export interface CheckedModels {
  readonly subagentModel?: string | undefined
  /** Prices by `adapter:model` (the form usage events name models in). */
  readonly pricing: Usage.PriceLookup
  /** `[agents.<name>]` profiles, their models checked. */
  readonly agentModels?: Readonly<Record<string, AgentModelProfile>> | undefined
}

/**
 * Checks that every spec of the model settings resolves with `registry` (which should hold the
 * config's aliases): alias targets, `[subagents] model` and pricing keys (aliases allowed, e.g.
 * `[pricing.sonnet]`). No credentials are needed. Fails with the first bad key, naming it.
 */
export const checkModelsConfig = (
  models: ModelsConfig,
  registry: Pick<ModelRegistry.ModelRegistryShape, "canonical">,
  file: string
): Effect.Effect<CheckedModels, ConfigError> =>
  Effect.gen(function*() {
    const makeError = (key: string, what: string) => configError(file, key, what)
    const check = (key: string, spec: string) =>
      registry.canonical(spec).pipe(Effect.mapError((e) => makeError(key, `= "${spec}" cannot be used: ${e.detail}`)))
    for (const [name, spec] of Object.entries(models.aliases)) yield* check(`[models] ${name}`, spec)
    if (models.subagentModel !== undefined && models.subagentModel !== ModelSpec.INHERIT_MODEL) yield* check("[subagents] model", models.subagentModel)
    const prices = new Map<string, Usage.Pricing>()
    for (const [spec, price] of Object.entries(models.pricing)) {
      prices.set(yield* registry.canonical(spec).pipe(Effect.mapError((e) => makeError(`[pricing."${spec}"]`, `names no model dsh can resolve: ${e.detail}`))), price)
    }
    for (const [name, profile] of Object.entries(models.agents ?? {})) {
      if (profile.model !== undefined && profile.model !== ModelSpec.INHERIT_MODEL) yield* check(`[agents.${name}] model`, profile.model)
    }
    return {
      subagentModel: models.subagentModel,
      pricing: (spec: string) => prices.get(spec),
      ...(models.agents === undefined ? {} : { agentModels: models.agents })
    }
  })
