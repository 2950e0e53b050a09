/**
 * Model specs as users and other harnesses write them, mapped to the one form a registry
 * resolves: `<adapter>:<model>`. Plain functions; `ModelRegistry.canonical` applies them to
 * the adapters it holds.
 *
 * | written | becomes |
 * |---|---|
 * | `openai:gpt-4.1`, `scripted:demo.json`, `scripted` | itself (an adapter name alone is that adapter's default) |
 * | an alias: `sonnet`, or one of `[models]` in config | its target, resolved the same way (aliases may name aliases) |
 * | `anthropic/claude-haiku-4-5` (OpenCode's `provider/model`) | `anthropic:claude-haiku-4-5` when an adapter is named `anthropic` |
 * | a bare vendor id: `claude-sonnet-4-5`, `gpt-5`, `o3` | `<adapter>:<id>` for the one adapter whose `modelIds` match it |
 * | `inherit` | nothing here: it names the parent's model, which only the caller knows |
 */

/** The spec that stands for "the parent's model" (Claude Code's and OpenCode's `inherit`). */
export const INHERIT_MODEL = "inherit"

/** `<adapter>:<model>` split at the first colon; without a colon, the adapter alone. */
export const parseModelSpec = (spec: string): { readonly adapter: string; readonly model: string } => {
  const colon = spec.indexOf(":")
  return colon < 0 ? { adapter: spec, model: "" } : { adapter: spec.slice(0, colon), model: spec.slice(colon + 1) }
}

/** Bare model ids an adapter serves: a pattern, and how to say it in messages (`claude-*`). */
export interface ModelIdPattern {
  readonly match: RegExp
  readonly describe: string
}

/** What spec resolution needs to know about an adapter. */
export interface SpecAdapter {
  readonly name: string
  /** Short names it ships, e.g. `sonnet` → `anthropic:claude-sonnet-4-5`. */
  readonly aliases?: Readonly<Record<string, string>> | undefined
  /** Bare vendor ids it serves without an `adapter:` prefix. */
  readonly modelIds?: ModelIdPattern | undefined
}

export type CanonicalSpec =
  | { readonly _tag: "Spec"; readonly spec: string }
  | { readonly _tag: "Unresolved"; readonly reason: string }

/** An alias name: no colon, slash or space (those are spec syntax), and not `inherit`. */
export const checkAliasName = (name: string): string | undefined =>
  name.trim() === "" ? "an alias needs a name"
    : /[:/\s]/.test(name) ? `"${name}" cannot be an alias: a name has no ':', '/' or spaces`
    : name === INHERIT_MODEL ? "\"inherit\" cannot be an alias: it names the parent's model"
    : undefined

const MAX_ALIAS_HOPS = 8

/**
 * The `<adapter>:<model>` form of `spec` (see the table above), or why there is none. User
 * aliases win over the adapters' own; `inherit` is never resolved here.
 */
export const canonicalModelSpec = (
  spec: string,
  adapters: ReadonlyArray<SpecAdapter>,
  aliases: Readonly<Record<string, string>> = {}
): CanonicalSpec => {
  const names = new Set(adapters.map((a) => a.name))
  const shipped = new Map<string, string>()
  for (const a of adapters) for (const [k, v] of Object.entries(a.aliases ?? {})) if (!shipped.has(k)) shipped.set(k, v)
  const aliasOf = (name: string): string | undefined =>
    Object.hasOwn(aliases, name) ? aliases[name] : shipped.get(name)
  const unresolved = (reason: string): CanonicalSpec => ({ _tag: "Unresolved", reason })
  const seen: Array<string> = []
  let current = spec.trim()
  for (let hop = 0; hop <= MAX_ALIAS_HOPS; hop++) {
    if (current === "") return unresolved("the model spec is empty")
    if (current === INHERIT_MODEL) {
      return unresolved(seen.length === 0 ? "\"inherit\" names the parent's model; only a caller that knows the parent resolves it" : `alias ${seen.join(" → ")} ends in "inherit", which is not a model`)
    }
    const colon = current.indexOf(":")
    const slash = current.indexOf("/")
    // `adapter:model` (the model may hold slashes and colons: `openai:ollama/qwen3:8b`).
    if (colon > 0 && (slash < 0 || colon < slash)) return { _tag: "Spec", spec: current }
    const alias = aliasOf(current)
    if (alias !== undefined) {
      if (seen.includes(current)) return unresolved(`the aliases ${[...seen, current].join(" → ")} form a cycle`)
      seen.push(current)
      current = alias.trim()
      continue
    }
    if (names.has(current)) return { _tag: "Spec", spec: current }
    // OpenCode's `provider/model`.
    if (slash > 0) {
      const provider = current.slice(0, slash)
      const model = current.slice(slash + 1)
      if (names.has(provider) && model !== "") return { _tag: "Spec", spec: `${provider}:${model}` }
      return unresolved(`"${current}": no adapter serves provider "${provider}" (adapters: ${[...names].join(", ") || "none"})`)
    }
    const claimed = adapters.filter((a) => a.modelIds?.match.test(current) === true)
    if (claimed.length === 1) return { _tag: "Spec", spec: `${claimed[0]!.name}:${current}` }
    return unresolved(describeUnresolved(current, adapters, [...new Set([...Object.keys(aliases), ...shipped.keys()])], claimed.map((a) => a.name)))
  }
  return unresolved(`the aliases ${seen.slice(0, MAX_ALIAS_HOPS).join(" → ")} go on for more than ${MAX_ALIAS_HOPS} steps`)
}

const describeUnresolved = (spec: string, adapters: ReadonlyArray<SpecAdapter>, aliases: ReadonlyArray<string>, ambiguous: ReadonlyArray<string>): string => {
  if (ambiguous.length > 1) return `"${spec}" is served by several adapters (${ambiguous.join(", ")}); write <adapter>:${spec}`
  const ids = adapters.flatMap((a) => (a.modelIds === undefined ? [] : [`${a.modelIds.describe} → ${a.name}`]))
  return `"${spec}" is not a model dsh can resolve: use <adapter>:<model> (adapters: ${adapters.map((a) => a.name).join(", ") || "none"})` +
    (aliases.length > 0 ? `, an alias (${[...aliases].sort().join(", ")})` : "") +
    (ids.length > 0 ? `, a vendor model id (${ids.join("; ")})` : "") +
    ", or provider/model"
}
