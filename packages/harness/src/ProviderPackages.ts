import type { ProviderConfig } from "./ProvidersConfig.ts"
import { LlmError, type ModelRegistry } from "@dsh/llm"
import { Effect } from "effect"
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"

/** Where a provider's package is looked for, and whose environment fills its `env` options. */
export interface ProviderPlace {
  readonly home: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The names of the CLI's own adapters: a `[providers.<name>]` cannot take them. */
export const BUILTIN_ADAPTERS: ReadonlyArray<string> = ["scripted", "openai", "anthropic"]

const installHint = (p: ProviderConfig, home: string) => `npm install --prefix "${home}" ${p.package}`

const configurationError = (p: ProviderConfig, detail: string) =>
  new LlmError.LlmError({ reason: "Configuration", provider: p.name, detail, retryable: false })

/** The directories searched, in order: `resolve_from` (default `$DSH_HOME`), then the working directory. */
export const searchDirs = (p: ProviderConfig, place: Pick<ProviderPlace, "home" | "cwd">): ReadonlyArray<string> =>
  [...(p.resolveFrom ?? [place.home]), place.cwd].map((d) => resolve(place.cwd, d))

/** The ESM entry of a package's `exports["."]` (`import`, then `default`), else `module` or `main`. */
const entryOf = (dir: string): string => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>
  const pick = (e: unknown): string | undefined =>
    typeof e === "string" ? e : typeof e === "object" && e !== null
      ? pick((e as Record<string, unknown>)["import"]) ?? pick((e as Record<string, unknown>)["default"]) ?? pick((e as Record<string, unknown>)["node"])
      : undefined
  const exp = manifest.exports
  const dot = typeof exp === "object" && exp !== null && "." in exp ? (exp as Record<string, unknown>)["."] : exp
  return join(dir, pick(dot) ?? (manifest.module as string | undefined) ?? (manifest.main as string | undefined) ?? "index.js")
}

/**
 * The package's directory under the first search directory that has it, looked up as Node
 * does from a file there (`node_modules/<pkg>` in the directory or an ancestor). Done by hand:
 * `require.resolve` refuses ESM-only packages whose `exports` have no `require` condition.
 */
export const findPackage = (pkg: string, dirs: ReadonlyArray<string>): string | undefined => {
  for (const start of dirs) {
    for (let d = start; ; d = dirname(d)) {
      const candidate = join(d, "node_modules", pkg)
      if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate)
      if (dirname(d) === d) break
    }
  }
  return undefined
}

type Factory = (options: Record<string, unknown>) => unknown

/** The provider object of one `[providers.<name>]`: its package imported, its factory called with its options. */
export const loadProvider = (p: ProviderConfig, place: ProviderPlace): Effect.Effect<{ readonly languageModel: (id: string) => never }, LlmError.LlmError> =>
  Effect.gen(function*() {
    const dirs = searchDirs(p, place)
    const dir = findPackage(p.package, dirs)
    if (dir === undefined) {
      return yield* configurationError(p, `package ${p.package} is not installed (looked in ${dirs.join(", ")}); install it: ${installHint(p, place.home)}`)
    }
    const module = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(entryOf(dir)).href) as Promise<Record<string, unknown>>,
      catch: (e) => configurationError(p, `package ${p.package} does not load: ${e instanceof Error ? e.message.split("\n")[0] : String(e)} (reinstall it: ${installHint(p, place.home)})`)
    })
    const creators = Object.keys(module).filter((k) => /^create[A-Z]/.test(k) && typeof module[k] === "function")
    const name = p.factory ?? (creators.length === 1 ? creators[0] : undefined)
    if (name === undefined) {
      return yield* configurationError(p, `package ${p.package} has ${creators.length === 0 ? "no create* export" : `several create* exports (${creators.join(", ")})`}: set factory = "…" in [providers.${p.name}]`)
    }
    const factory = module[name]
    if (typeof factory !== "function") {
      return yield* configurationError(p, `factory ${name} of package ${p.package} is not a function${creators.length > 0 ? ` (functions: ${creators.join(", ")})` : ""}`)
    }
    const options: Record<string, unknown> = { ...p.options }
    for (const [option, variable] of Object.entries(p.env)) {
      const value = place.env[variable]
      if (value === undefined || value === "") return yield* configurationError(p, `${variable} is not set (env of [providers.${p.name}], passed as ${option})`)
      options[option] = value
    }
    const provider = yield* Effect.try({
      try: () => (factory as Factory)(options),
      catch: (e) => configurationError(p, `${name}(options) of package ${p.package} failed: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`)
    })
    const languageModel = typeof provider === "function" || (typeof provider === "object" && provider !== null)
      ? (provider as { languageModel?: unknown }).languageModel
      : undefined
    if (typeof languageModel !== "function") {
      return yield* configurationError(p, `${name}() of package ${p.package} returned no AI SDK provider (it has no languageModel)`)
    }
    return provider as { readonly languageModel: (id: string) => never }
  })

/**
 * One model adapter per `[providers.<name>]`: the package is loaded when a spec first names the
 * provider, so a run on another model never imports it. Failures are `Configuration` errors
 * (exit 2) naming the provider, the package and the install command.
 */
export const providerAdapters = (providers: ReadonlyArray<ProviderConfig>, place: ProviderPlace): ReadonlyArray<ModelRegistry.ModelAdapter> =>
  providers.map((p) => {
    let loaded: Effect.Effect<ModelRegistry.ModelAdapter, LlmError.LlmError> | undefined
    const load = () =>
      (loaded ??= Effect.runSync(Effect.cached(Effect.gen(function*() {
        const provider = yield* loadProvider(p, place)
        const { AiSdkAdapter: { aiSdkAdapter } } = yield* Effect.promise(() => import("@dsh/llm-ai-sdk"))
        return aiSdkAdapter({ name: p.name, provider, description: `AI SDK provider ${p.package}` })
      }))))
    return {
      name: p.name,
      description: `AI SDK provider ${p.package}`,
      create: (model, config) =>
        Effect.flatMap(load(), (adapter) => adapter.create(model, config)).pipe(
          Effect.mapError((e) =>
            e.detail.includes(p.package) ? e : new LlmError.LlmError({ ...e, detail: `${e.detail} (package ${p.package}; ${installHint(p, place.home)} to update it)` })
          )
        )
    }
  })

const tomlValue = (v: unknown): string | undefined => {
  if (typeof v === "string") return JSON.stringify(v)
  if (typeof v === "number" || typeof v === "boolean") return String(v)
  if (Array.isArray(v)) return `[${v.map(tomlValue).filter((x) => x !== undefined).join(", ")}]`
  if (typeof v === "object" && v !== null) {
    return `{ ${Object.entries(v).flatMap(([k, x]) => {
      const t = tomlValue(x)
      return t === undefined ? [] : [`${JSON.stringify(k)} = ${t}`]
    }).join(", ")} }`
  }
  return undefined
}

/**
 * `[providers]` as TOML for the config of an out-of-process dsh child: the same packages,
 * searched first where the parent searched them (`resolve_from`), since the child's own
 * `$DSH_HOME` is a private directory without `node_modules`.
 */
export const providersToml = (providers: ReadonlyArray<ProviderConfig>, place: Pick<ProviderPlace, "home" | "cwd">): string =>
  providers.map((p) =>
    [
      `[providers.${p.name}]`,
      `package = ${JSON.stringify(p.package)}`,
      ...(p.factory === undefined ? [] : [`factory = ${JSON.stringify(p.factory)}`]),
      `options = ${tomlValue(p.options) ?? "{}"}`,
      `env = ${tomlValue(p.env) ?? "{}"}`,
      `resolve_from = ${tomlValue(searchDirs(p, place).slice(0, -1))}`
    ].join("\n") + "\n"
  ).join("")

/** The variables the providers read: a child process must be passed them. */
export const providerEnvNames = (providers: ReadonlyArray<ProviderConfig>): ReadonlyArray<string> =>
  [...new Set(providers.flatMap((p) => Object.values(p.env)))]

/** For `dsh doctor`: whether each configured provider loads (its package, factory and env). */
export const providerStatuses = (providers: ReadonlyArray<ProviderConfig>, place: ProviderPlace) =>
  Effect.forEach(providers, (p) =>
    loadProvider(p, place).pipe(
      Effect.map(() => ({ name: p.name, package: p.package, status: "ok" as const })),
      Effect.catch((e) => Effect.succeed({ name: p.name, package: p.package, status: "error" as const, reason: e.detail }))
    ))
