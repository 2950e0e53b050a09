/**
 * `[providers.<name>]` of dsh's `config.toml`: models from installed AI SDK providers.
 *
 * ```toml
 * [providers.groq]
 * package = "@ai-sdk/groq"           # npm install --prefix "$DSH_HOME" @ai-sdk/groq
 * factory = "createGroq"             # optional: the package's only create* export by default
 * env = ["GROQ_API_KEY"]             # the first variable's value is passed as options.apiKey
 * options = { baseURL = "https://api.groq.com/openai/v1", headers = { "x-team" = "a" } }
 * ```
 *
 * `env` may also be a table naming the option each variable fills: `env = { apiKey = "GROQ_API_KEY" }`.
 * The spec is then `groq:<model id>`.
 */
export interface ProviderConfig {
  readonly name: string
  /** An npm package name (`@ai-sdk/groq`), resolved from `resolveFrom`, then the working directory. */
  readonly package: string
  /** The export to call with `options`; unset: the package's only `create*` export. */
  readonly factory?: string | undefined
  /** Passed to the factory as they are (`baseURL`, `headers`, `name`…). */
  readonly options: Readonly<Record<string, unknown>>
  /** Option name → environment variable whose value fills it (`apiKey` → `GROQ_API_KEY`). */
  readonly env: Readonly<Record<string, string>>
  /**
   * `resolve_from = ["dir", …]`: directories whose `node_modules` are searched first; unset:
   * `$DSH_HOME`. (A parent dsh writes its own home here for its out-of-process children.)
   */
  readonly resolveFrom?: ReadonlyArray<string> | undefined
}

/** Names of providers: lower-case, as a model spec prefix (`groq:…`) must be. */
export const PROVIDER_NAME = /^[a-z][a-z0-9_-]{0,63}$/

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Reads `[providers.*]`; `fail` records the first bad key (see `decodeHarnessConfig`). */
export const decodeProvidersConfig = (raw: Readonly<Record<string, unknown>>, fail: (key: string, what: string) => undefined): ReadonlyArray<ProviderConfig> => {
  const table = raw.providers
  if (table === undefined) return []
  if (!isRecord(table)) return (fail("[providers]", "must hold tables such as [providers.groq]"), [])
  const out: Array<ProviderConfig> = []
  for (const [name, entry] of Object.entries(table)) {
    const key = `[providers.${name}]`
    if (!PROVIDER_NAME.test(name)) {
      fail(key, "is not allowed: a provider name is lower-case letters, digits, - and _ (it prefixes model specs: name:model)")
      continue
    }
    if (!isRecord(entry)) {
      fail(key, "must be a table with package = \"@ai-sdk/…\"")
      continue
    }
    const pkg = entry.package
    if (typeof pkg !== "string" || pkg.trim() === "") {
      fail(`${key} package`, "must name an npm package, e.g. \"@ai-sdk/groq\"")
      continue
    }
    if (entry.factory !== undefined && (typeof entry.factory !== "string" || !/^[A-Za-z_$][\w$]*$/.test(entry.factory))) {
      fail(`${key} factory`, "must be the name of a function the package exports, e.g. \"createGroq\"")
      continue
    }
    if (entry.options !== undefined && !isRecord(entry.options)) {
      fail(`${key} options`, "must be a table, e.g. { baseURL = \"https://…\" }")
      continue
    }
    const env: Record<string, string> = {}
    const rawEnv = entry.env
    if (Array.isArray(rawEnv)) {
      if (!rawEnv.every((v) => typeof v === "string" && ENV_NAME.test(v))) {
        fail(`${key} env`, "must be a list of environment variable names, e.g. [\"GROQ_API_KEY\"]")
        continue
      }
      if (rawEnv[0] !== undefined) env.apiKey = rawEnv[0] as string
    } else if (isRecord(rawEnv)) {
      const bad = Object.entries(rawEnv).find(([, v]) => typeof v !== "string" || !ENV_NAME.test(v))
      if (bad !== undefined) {
        fail(`${key} env.${bad[0]}`, "must be an environment variable name")
        continue
      }
      Object.assign(env, rawEnv)
    } else if (rawEnv !== undefined) {
      fail(`${key} env`, "must be a list of variable names (the first fills apiKey) or a table option = \"VARIABLE\"")
      continue
    }
    const from = entry.resolve_from
    if (from !== undefined && !(Array.isArray(from) && from.every((d) => typeof d === "string" && d !== ""))) {
      fail(`${key} resolve_from`, "must be a list of directories")
      continue
    }
    out.push({
      name,
      package: pkg.trim(),
      factory: entry.factory as string | undefined,
      options: (entry.options ?? {}) as Record<string, unknown>,
      env,
      resolveFrom: from as ReadonlyArray<string> | undefined
    })
  }
  return out
}
