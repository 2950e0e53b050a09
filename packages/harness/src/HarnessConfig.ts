import { Http } from "@dsh/llm"
import { Archiving, Limits } from "@dsh/subagent"
import { StoreSpec } from "@dsh/session"
import type { Sandbox } from "@dsh/subprocess"
import { type PermissionPolicy, PermissionRule } from "@dsh/tools"
import { Effect, Layer, Result } from "effect"
import { ConfigError, configError } from "./ConfigError.ts"
import { decodeHooksConfig, type HookSettings } from "./HooksConfig.ts"
import { decodeModelsConfig, type ModelsConfig } from "./ModelsConfig.ts"
import { decodeProvidersConfig, type ProviderConfig } from "./ProvidersConfig.ts"

export * from "./ConfigError.ts"
export * from "./HooksConfig.ts"

/**
 * A harness's settings, as dsh's `config.toml` holds them (parsed TOML in, typed settings out).
 * Unknown keys are ignored; a known key with a wrong type or out of its range is an error
 * naming the key and what is allowed.
 */
export interface HarnessConfig {
  readonly model?: string | undefined
  readonly extraAgentDirs: ReadonlyArray<string>
  /** `plugin_agent_dirs`: agent directories of enabled plugins (the plugin scope). */
  readonly pluginAgentDirs: ReadonlyArray<string>
  /** `[limits]`; `timeout_seconds = 0` means no timeout. */
  readonly limits: {
    readonly maxConcurrent?: number | undefined
    readonly timeoutSeconds?: number | undefined
    readonly maxDepth?: number | undefined
    readonly maxChildren?: number | undefined
    /** `max_child_output_bytes`: what one child run may produce before it is stopped as failed. */
    readonly maxChildOutputBytes?: number | undefined
  }
  /** `[llm]`: how model calls are retried on 429, 5xx and network errors. */
  readonly llm: { readonly maxRetries?: number | undefined; readonly retryBaseMs?: number | undefined }
  /** `[bash] env = ["NAME", …]`: parent variables the Bash tool may see (everything else is scrubbed). */
  readonly bashEnv: ReadonlyArray<string>
  /** `[permissions] mode, allow, ask, deny`: the rules of every agent of the tree (rules checked). */
  readonly permissions: PermissionPolicy.PermissionSettings
  /** `[sandbox] mode, network, writable`: how Bash is confined. */
  readonly sandbox: Sandbox.SandboxSettings
  /** `[acp] context_window`: the model's window in tokens, when known. */
  readonly acpContextWindow?: number | undefined
  /**
   * `store = "…"`: where sessions live, a directory (the file store) or a `postgres://` URL
   * (`@dsh/session-pg`), checked with `parseStoreSpec`; kept as written (a relative directory is
   * the harness's to resolve).
   */
  readonly store?: string | undefined
  /**
   * `[acp] keep_alive_seconds`: how long a finished ACP child stays idle and warm for the next
   * message (default 60 when unset; 0 closes children when their run ends).
   */
  readonly acpKeepAliveSeconds?: number | undefined
  /** `[models]` aliases, `[subagents] model` and `[pricing."<spec>"]` (see `ModelsConfig`). */
  readonly models: ModelsConfig
  /** `[providers.<name>]`: installed AI SDK providers, each a model adapter `<name>:<model id>` (see `ProviderConfig`). */
  readonly providers: ReadonlyArray<ProviderConfig>
  /**
   * `[subagents] archive_after_minutes`: how long after a child's run ended its transcript moves
   * into the session's archive (default 60; 0 = never). Also what `dsh sessions prune` archives.
   */
  readonly archiving: { readonly afterMinutes?: number | undefined }
  /**
   * `[cluster] enabled = true`: children of in-process agent types run on the runners of a cluster
   * (`@dsh/subagent-cluster`), which needs a `postgres://` store. Default false.
   * `[cluster] runner_wait_seconds`: how long a run waits for a live runner before it fails
   * (default 10 when unset).
   */
  readonly cluster: { readonly enabled: boolean; readonly runnerWaitSeconds?: number | undefined }
  /** `[[hooks.<Event>]]`: command hooks on Claude Code's lifecycle events (`matcher`, `command`, `timeout`). */
  readonly hooks: ReadonlyArray<HookSettings>
  /** The whole table, for packages that read sections of their own (`[acp.agents.*]`). */
  readonly raw: Readonly<Record<string, unknown>>
}


interface Range {
  readonly min: number
  readonly max: number
  readonly integer?: boolean | undefined
}

/** Every numeric setting and its range. */
export const CONFIG_RANGES = {
  "limits.max_concurrent": { min: 1, max: 1024, integer: true },
  "limits.timeout_seconds": { min: 0, max: 7 * 24 * 3600 },
  "limits.max_depth": { min: 0, max: 5, integer: true },
  "limits.max_children": { min: 1, max: 100_000, integer: true },
  "limits.max_child_output_bytes": { min: 1024, max: 1024 * 1024 * 1024, integer: true },
  "llm.max_retries": { min: 0, max: 10, integer: true },
  "llm.retry_base_ms": { min: 1, max: 60_000, integer: true },
  "acp.context_window": { min: 1, max: 100_000_000, integer: true },
  "acp.keep_alive_seconds": { min: 0, max: 24 * 3600 },
  "subagents.archive_after_minutes": { min: 0, max: 525_600, integer: true },
  "cluster.runner_wait_seconds": { min: 0, max: 24 * 3600 }
} as const satisfies Record<string, Range>

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const describeRange = (r: Range) => `${r.integer === true ? "an integer" : "a number"} from ${r.min} to ${r.max}`

/** Reads the settings from a parsed config table; `file` names it in errors (the first bad key). */
export const decodeHarnessConfig = (raw: Readonly<Record<string, unknown>>, file: string): Effect.Effect<HarnessConfig, ConfigError> => {
  let error: ConfigError | undefined
  const fail = (key: string, what: string): undefined => {
    error ??= configError(file, key, what)
    return undefined
  }
  const table = (name: string): Record<string, unknown> => {
    const value = raw[name]
    if (value === undefined) return {}
    return isRecord(value) ? value : (fail(`[${name}]`, "must be a table"), {})
  }
  const number = (section: string, name: keyof typeof CONFIG_RANGES extends `${string}.${infer K}` ? K : never) => {
    const key = `${section}.${name}` as keyof typeof CONFIG_RANGES
    const range: Range = CONFIG_RANGES[key]
    const value = table(section)[name]
    if (value === undefined) return undefined
    if (typeof value !== "number" || !Number.isFinite(value) || value < range.min || value > range.max || (range.integer === true && !Number.isInteger(value))) {
      return fail(`[${section}] ${name}`, `= ${JSON.stringify(value)} is not allowed: it must be ${describeRange(range)}`)
    }
    return value
  }
  const strings = (value: unknown, key: string): ReadonlyArray<string> => {
    if (value === undefined) return []
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : (fail(key, "must be a list of strings"), [])
  }
  const rules = (key: "allow" | "ask" | "deny"): ReadonlyArray<string> | undefined => {
    const value = table("permissions")[key]
    if (value === undefined) return undefined
    const list = strings(value, `[permissions] ${key}`)
    for (const text of list) {
      const read = PermissionRule.readPermissionRule(text)
      if (read instanceof PermissionRule.PermissionRuleError) fail(`[permissions] ${key}`, `has a ${read.message}`)
    }
    return list
  }
  const permissionMode = () => {
    const value = table("permissions").mode
    if (value === undefined) return undefined
    const mode = typeof value === "string" ? PermissionRule.parsePermissionMode(value) : undefined
    return mode ?? fail("[permissions] mode", `= ${JSON.stringify(value)} is not allowed: it must be one of ${PermissionRule.PERMISSION_MODES.join(", ")}`)
  }
  const sandbox = (): Sandbox.SandboxSettings => {
    const t = table("sandbox")
    const modes: ReadonlyArray<Sandbox.SandboxMode> = ["auto", "on", "off"]
    const mode = t.mode === undefined ? "auto" : modes.includes(t.mode as Sandbox.SandboxMode) ? t.mode as Sandbox.SandboxMode : (fail("[sandbox] mode", `= ${JSON.stringify(t.mode)} is not allowed: it must be one of auto, on, off`), "auto")
    const network = t.network === undefined ? false : typeof t.network === "boolean" ? t.network : (fail("[sandbox] network", "must be true or false"), false)
    return { mode, network, writable: strings(t.writable, "[sandbox] writable") }
  }
  const model = typeof raw.model === "string" || raw.model === undefined ? raw.model : fail("model", "must be a string (a model spec)")
  const store = (() => {
    if (raw.store === undefined) return undefined
    if (typeof raw.store !== "string") return fail("store", "must be a string: a directory or a postgres:// URL")
    const parsed = StoreSpec.parseStoreSpec(raw.store)
    return Result.isSuccess(parsed) ? raw.store : fail("store", parsed.failure)
  })()
  const boolean = (section: string, name: string): boolean | undefined => {
    const value = table(section)[name]
    return value === undefined || typeof value === "boolean" ? value : fail(`[${section}] ${name}`, `= ${JSON.stringify(value)} is not allowed: it must be true or false`)
  }
  const config: HarnessConfig = {
    model,
    extraAgentDirs: strings(raw.extra_agent_dirs, "extra_agent_dirs"),
    pluginAgentDirs: strings(raw.plugin_agent_dirs, "plugin_agent_dirs"),
    limits: {
      maxConcurrent: number("limits", "max_concurrent"),
      timeoutSeconds: number("limits", "timeout_seconds"),
      maxDepth: number("limits", "max_depth"),
      maxChildren: number("limits", "max_children"),
      maxChildOutputBytes: number("limits", "max_child_output_bytes")
    },
    llm: { maxRetries: number("llm", "max_retries"), retryBaseMs: number("llm", "retry_base_ms") },
    bashEnv: strings(table("bash").env, "[bash] env"),
    permissions: Object.fromEntries(
      Object.entries({ mode: permissionMode(), allow: rules("allow"), ask: rules("ask"), deny: rules("deny") }).filter(([, v]) => v !== undefined)
    ) as PermissionPolicy.PermissionSettings,
    sandbox: sandbox(),
    acpContextWindow: number("acp", "context_window"),
    store,
    acpKeepAliveSeconds: number("acp", "keep_alive_seconds"),
    models: decodeModelsConfig(raw, fail),
    providers: decodeProvidersConfig(raw, fail),
    archiving: { afterMinutes: number("subagents", "archive_after_minutes") },
    cluster: { enabled: boolean("cluster", "enabled") ?? false, runnerWaitSeconds: number("cluster", "runner_wait_seconds") },
    hooks: decodeHooksConfig(raw, fail),
    raw
  }
  return error === undefined ? Effect.succeed(config) : Effect.fail(error)
}

/**
 * The services the settings configure: the tree limits (`SubagentLimits`), when children are
 * archived (`SubagentArchiving`) and the model retry policy (`RetryPolicy`), for a harness to
 * provide under its host.
 */
export const configLayer = (config: HarnessConfig): Layer.Layer<never> =>
  Layer.mergeAll(
    Layer.succeed(Limits.SubagentLimits, Limits.normalizeLimits(config.limits)),
    Layer.succeed(Archiving.SubagentArchiving, { afterMinutes: config.archiving.afterMinutes ?? Archiving.defaultArchiving.afterMinutes }),
    Layer.succeed(Http.RetryPolicy, {
      maxRetries: config.llm.maxRetries ?? 3,
      baseDelay: config.llm.retryBaseMs === undefined ? "500 millis" : `${config.llm.retryBaseMs} millis`,
      maxDelay: "8 seconds"
    })
  ) as Layer.Layer<never>
