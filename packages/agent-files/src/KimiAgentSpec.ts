import * as Path from "node:path"
import { Effect } from "effect"
import { type AgentDefinition, AgentName } from "@dsh/agent"
import type { AgentFileResult } from "./AgentFile.ts"
import { MAX_AGENT_FILE_BYTES } from "./AgentFileParts.ts"
import * as Fs from "./internal/Fs.ts"
import { decodeUtf8, normalizeText, parseYamlDocument } from "./internal/Frontmatter.ts"
import { mapToolName } from "./ToolNames.ts"

/**
 * kimi-cli's YAML agent specs (`agent.yaml`), read with kimi-cli's semantics:
 *
 * - `version: 1` and an `agent` mapping; `extend` names a spec to start from, a path relative to
 *   the file, or `default` — here dsh's default main agent: its prompt (`${base_prompt}`)
 *   followed by `${ROLE_ADDITIONAL}`, every tool. Fields present override the base; absent
 *   ones are inherited; `null` means none (`tools: null`, `subagents: null`);
 *   `system_prompt_args` are merged key by key.
 * - `system_prompt_path` is relative to the file that names it (`system_prompt` inline works
 *   too); the prompt is a template: `${ARG}`/`$ARG` take `system_prompt_args`, kimi-cli's
 *   built-ins map to dsh's variables (`${KIMI_WORK_DIR}` → `${cwd}`, …), `$$` is `$`.
 * - `tools` (`module:Class` ids, mapped to dsh's tools by class name), `allowed_tools` (narrows
 *   them), `exclude_tools` (→ `disallowedTools`); tools dsh does not have are dropped, saying so.
 * - `subagents: {name: {path, description}}`: the agents this one may delegate to, loaded from
 *   their paths under those names and descriptions.
 * - `when_to_use`, `model` and `mode` as in agent files. A spec's name is `agent.name`, else the
 *   directory of an `agent.yaml`, else the file name; a spec with no description of its own (one
 *   that no parent describes and that has no `when_to_use`) is a main agent (`mode: primary`).
 *
 * Not supported (each is reported where it matters): Jinja blocks in prompts (`{% if %}` blocks
 * are dropped), `system_prompt_args_files`, `when_to_use_file`, custom tools (`my_tools.ls:Ls`),
 * kimi-cli's other built-in agents (`extend: okabe`), and the fields dsh has no notion of
 * (`temperature`, `top_p`, `steps`, `max_depth`, `isolation`, `hidden`).
 */

/** Whether a path names a YAML file discovery reads as a Kimi agent spec. */
export const isKimiSpecPath = (path: string): boolean => /\.ya?ml$/i.test(path)

/** A subagent a spec declares by path. */
export interface KimiSubagentRef {
  readonly name: string
  readonly path: string
  readonly description: string
}

/** A loaded spec: its definition, and the subagents it declares (to load under their names). */
export interface KimiSpecResult {
  readonly result: AgentFileResult
  readonly subagents: ReadonlyArray<KimiSubagentRef>
  /** The prompt files it was built from (`system_prompt_path`, its own and its bases'). */
  readonly prompts?: ReadonlyArray<string> | undefined
}

const MAX_EXTEND_DEPTH = 8
const SUPPORTED_VERSIONS = new Set(["1"])
const UNSUPPORTED_FIELDS = ["system_prompt_args_files", "when_to_use_file", "temperature", "top_p", "steps", "max_depth", "isolation", "hidden"]

/** kimi-cli's built-in template variables, as dsh names them. */
const KIMI_VARIABLES: Readonly<Record<string, string>> = {
  KIMI_NOW: "now",
  KIMI_WORK_DIR: "cwd",
  KIMI_WORK_DIR_LS: "cwd_listing",
  KIMI_AGENTS_MD: "agents_md",
  KIMI_SKILLS: "skills",
  KIMI_OS: "os",
  KIMI_SHELL: "shell",
  KIMI_ADDITIONAL_DIRS_INFO: "additional_dirs_info"
}

/** What `extend: default` starts from: dsh's default prompt plus the role addition. */
const DEFAULT_BASE: Raw = {
  systemPrompt: "${base_prompt}\n\n${ROLE_ADDITIONAL}",
  args: { ROLE_ADDITIONAL: "" },
  everyType: true
}

/** A spec's fields after `extend`: `undefined` is absent (inherit), `null` is none. */
interface Raw {
  readonly name?: string | undefined
  readonly systemPrompt?: string | undefined
  readonly args: Readonly<Record<string, string>>
  readonly tools?: ReadonlyArray<string> | null | undefined
  readonly allowedTools?: ReadonlyArray<string> | null | undefined
  readonly excludeTools?: ReadonlyArray<string> | null | undefined
  readonly subagents?: ReadonlyArray<KimiSubagentRef> | null | undefined
  /** Inherited from dsh's default agent: it may delegate to every type (until a spec sets `subagents`). */
  readonly everyType?: boolean | undefined
  readonly whenToUse?: string | undefined
  readonly model?: string | undefined
  readonly mode?: AgentDefinition.AgentMode | undefined
}

type Loaded =
  | { readonly _tag: "Raw"; readonly raw: Raw; readonly warnings: ReadonlyArray<string>; readonly prompts: ReadonlyArray<string> }
  | { readonly _tag: "Invalid"; readonly reason: string }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const invalid = (reason: string): Loaded => ({ _tag: "Invalid", reason })

const readText = (path: string, limit: number) =>
  Fs.readBounded(path, limit).pipe(
    Effect.map(({ bytes, truncated }) => {
      const text = decodeUtf8(bytes)
      return truncated ? { error: `${path} is over the ${limit}-byte limit` } : text === undefined || text.includes("\u0000") ? { error: `${path} is not UTF-8 text` } : { text: normalizeText(text) }
    }),
    Effect.catch((e) => Effect.succeed({ error: Fs.isMissing(e) ? `${path} does not exist` : `cannot read ${path}: ${e.message}` }))
  )

const stringList = (field: string, value: unknown, warnings: Array<string>): ReadonlyArray<string> | null | undefined => {
  if (value === undefined) return undefined
  if (value === null) return null
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === "string" ? [v.trim()] : (warnings.push(`${field}: ${JSON.stringify(v)} is not a tool id and is ignored`), [])))
  warnings.push(`${field}: must be a list of tool ids; ignored`)
  return undefined
}

/** One file's own fields (paths resolved against it), then its `extend` chain underneath. */
const loadRaw = (path: string, chain: ReadonlyArray<string>): Effect.Effect<Loaded> =>
  Effect.gen(function*() {
    if (chain.includes(path)) return invalid(`extend cycle: ${[...chain, path].map((p) => Path.basename(p)).join(" → ")}`)
    if (chain.length > MAX_EXTEND_DEPTH) return invalid(`extend chain longer than ${MAX_EXTEND_DEPTH} specs`)
    const read = yield* readText(path, MAX_AGENT_FILE_BYTES)
    if ("error" in read) return invalid(chain.length === 0 ? read.error : `extends ${read.error}`)
    const doc = parseYamlDocument(read.text, MAX_AGENT_FILE_BYTES)
    const where = chain.length === 0 ? "" : `${Path.basename(path)} (extended): `
    if (!doc.ok) return invalid(`${where}malformed YAML: ${doc.error}`)
    if (!isRecord(doc.value) || !isRecord(doc.value.agent)) return invalid(`${where}not a Kimi agent spec (a YAML file with an "agent" mapping)`)
    const version = String(doc.value.version ?? "1")
    if (!SUPPORTED_VERSIONS.has(version)) return invalid(`${where}unsupported agent spec version ${version} (dsh reads version 1)`)
    const agent = doc.value.agent
    const dir = Path.dirname(path)
    const warnings: Array<string> = []
    for (const field of UNSUPPORTED_FIELDS) if (agent[field] !== undefined) warnings.push(`${where}${field} is not supported by dsh; ignored`)
    const text = (field: string): string | undefined => {
      const v = agent[field]
      if (v === undefined || v === null) return undefined
      if (typeof v === "string") return v
      warnings.push(`${where}${field}: must be text; ignored`)
      return undefined
    }
    let systemPrompt = text("system_prompt")
    const promptPath = text("system_prompt_path")
    const prompts: Array<string> = []
    if (promptPath !== undefined && promptPath.trim() !== "") {
      const file = Path.resolve(dir, promptPath)
      const prompt = yield* readText(file, AgentName.MAX_SYSTEM_PROMPT_CHARS * 4)
      if ("error" in prompt) return invalid(`${where}system_prompt_path: ${prompt.error}`)
      systemPrompt = prompt.text
      prompts.push(file)
    }
    const args: Record<string, string> = {}
    const rawArgs = agent.system_prompt_args
    if (isRecord(rawArgs)) for (const [k, v] of Object.entries(rawArgs)) args[k] = typeof v === "string" ? v : v === null || v === undefined ? "" : String(v)
    let subagents: ReadonlyArray<KimiSubagentRef> | null | undefined
    if (agent.subagents === null) subagents = null
    else if (isRecord(agent.subagents)) {
      subagents = Object.entries(agent.subagents).flatMap(([name, entry]) => {
        if (!isRecord(entry) || typeof entry.path !== "string") {
          warnings.push(`${where}subagents.${name}: needs a path; ignored`)
          return []
        }
        return [{ name, path: Path.resolve(dir, entry.path), description: typeof entry.description === "string" ? entry.description.trim() : "" }]
      })
    } else if (agent.subagents !== undefined) warnings.push(`${where}subagents: must be a mapping of name: {path, description}; ignored`)
    const mode = text("mode")
    const own: Raw = {
      name: text("name"),
      systemPrompt,
      args,
      tools: stringList("tools", agent.tools, warnings),
      allowedTools: stringList("allowed_tools", agent.allowed_tools, warnings),
      excludeTools: stringList("exclude_tools", agent.exclude_tools, warnings),
      subagents,
      whenToUse: text("when_to_use"),
      model: text("model"),
      mode: mode === "primary" || mode === "subagent" || mode === "all" ? mode : undefined
    }
    const extend = text("extend")?.trim()
    if (extend === undefined || extend === "") return { _tag: "Raw", raw: own, warnings, prompts }
    let base: Loaded
    if (extend === "default") base = { _tag: "Raw", raw: DEFAULT_BASE, warnings: [], prompts: [] }
    else if (!/[/\\.]/.test(extend)) return invalid(`${where}extends the kimi-cli built-in agent "${extend}", which dsh does not have (only "default", dsh's default agent)`)
    else base = yield* loadRaw(Path.resolve(dir, extend), [...chain, path])
    if (base._tag === "Invalid") return base
    const b = base.raw
    const merged: Raw = {
      name: own.name ?? b.name,
      systemPrompt: own.systemPrompt ?? b.systemPrompt,
      args: { ...b.args, ...own.args },
      tools: own.tools !== undefined ? own.tools : b.tools,
      allowedTools: own.allowedTools !== undefined ? own.allowedTools : b.allowedTools,
      excludeTools: own.excludeTools !== undefined ? own.excludeTools : b.excludeTools,
      subagents: own.subagents !== undefined ? own.subagents : b.subagents,
      everyType: own.subagents === undefined && b.everyType === true,
      whenToUse: own.whenToUse ?? b.whenToUse,
      model: own.model ?? b.model,
      mode: own.mode ?? b.mode
    }
    return { _tag: "Raw", raw: merged, warnings: [...base.warnings, ...warnings], prompts: [...base.prompts, ...prompts] }
  })

/** kimi-cli tool ids (`kimi_cli.tools.file:ReadFile`) as dsh tools; the ones dsh lacks are reported. */
const mapKimiTools = (ids: ReadonlyArray<string>, missing: Set<string>): Array<string> => {
  const out: Array<string> = []
  for (const id of ids) {
    const cls = id.includes(":") ? id.slice(id.lastIndexOf(":") + 1) : id
    const mapped = mapToolName(cls)
    if (mapped.length === 1 && mapped[0] === cls && !/^(?:Read|Write|Edit|Glob|Grep|Bash|mcp__.+)$/.test(cls)) missing.add(cls)
    else out.push(...mapped)
  }
  return [...new Set(out)]
}

/** Python `string.Template` placeholders with the spec's args, kimi-cli's built-ins as dsh variables. */
const renderKimiPrompt = (template: string, args: Readonly<Record<string, string>>, warnings: Array<string>): string => {
  let dropped = 0
  const withoutJinja = template
    .replace(/\{%-?\s*if\b[\s\S]*?\{%-?\s*endif\s*[-+]?%\}/g, () => (dropped++, ""))
    .replace(/\{%[\s\S]*?%\}/g, () => (dropped++, ""))
  if (dropped > 0) warnings.push(`Jinja tags are not supported: ${dropped} {% … %} block(s) dropped from the system prompt`)
  return withoutJinja.replace(/\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare
    if (name === undefined) return "$"
    if (Object.hasOwn(args, name)) return args[name]!
    if (Object.hasOwn(KIMI_VARIABLES, name)) return `\${${KIMI_VARIABLES[name]}}`
    return whole
  })
}

/** The name a spec without a usable `name` gets: an `agent.yaml`'s directory, else the file's name. */
const nameFromSpecPath = (path: string): string => {
  const base = Path.basename(path).replace(/\.ya?ml$/i, "")
  return base === "agent" ? Path.basename(Path.dirname(path)) : base
}

/**
 * Loads a Kimi agent spec (its `extend` chain, prompt file and tools resolved) as an agent
 * definition in `scope`. Never fails: a spec dsh cannot use is `Invalid` with the reason.
 * `as` loads it as a subagent another spec declares: under that name and description.
 */
export const loadKimiAgentSpec = (
  path: string,
  scope: AgentDefinition.AgentScope,
  as?: { readonly name: string; readonly description: string } | undefined
): Effect.Effect<KimiSpecResult> =>
  Effect.gen(function*() {
    const loaded = yield* loadRaw(path, [])
    if (loaded._tag === "Invalid") return { result: { _tag: "Invalid", path, reason: loaded.reason }, subagents: [] }
    const { raw } = loaded
    const warnings = [...loaded.warnings]
    let name = as?.name ?? raw.name?.trim() ?? ""
    if (AgentName.validateAgentName(name) !== undefined) {
      const given = name
      name = nameFromSpecPath(path)
      if (AgentName.validateAgentName(name) !== undefined) name = AgentName.suggestAgentName(name) ?? name
      const problem = AgentName.validateAgentName(name)
      if (problem !== undefined) return { result: { _tag: "Invalid", path, reason: `no usable name: ${problem}` }, subagents: [] }
      if (given !== "") warnings.push(`name "${given}" is not a dsh agent name (kebab-case); named "${name}" after the file`)
    }
    if (raw.systemPrompt === undefined || raw.systemPrompt.trim() === "") {
      return { result: { _tag: "Invalid", path, reason: "no system prompt (system_prompt_path, system_prompt, or extend)" }, subagents: [] }
    }
    const systemPrompt = renderKimiPrompt(raw.systemPrompt, raw.args, warnings)
    if (systemPrompt.length > AgentName.MAX_SYSTEM_PROMPT_CHARS) {
      return { result: { _tag: "Invalid", path, reason: `system prompt is ${systemPrompt.length} characters, over the ${AgentName.MAX_SYSTEM_PROMPT_CHARS}-character limit` }, subagents: [] }
    }
    const missing = new Set<string>()
    const mapped = raw.tools === undefined ? undefined : raw.tools === null ? [] : mapKimiTools(raw.tools, missing)
    const allowed = raw.allowedTools === undefined || raw.allowedTools === null ? undefined : mapKimiTools(raw.allowedTools, missing)
    const tools = allowed === undefined ? mapped : mapped === undefined ? allowed : mapped.filter((t) => allowed.includes(t))
    const excluded = raw.excludeTools === undefined || raw.excludeTools === null ? [] : mapKimiTools(raw.excludeTools, new Set())
    if (missing.size > 0) warnings.push(`tools dsh does not have are left out: ${[...missing].join(", ")}`)
    const refs = raw.subagents ?? []
    const description = as?.description || raw.whenToUse?.trim() || ""
    const definition: AgentDefinition.AgentDefinition = {
      name,
      description: description !== "" ? description : `Kimi agent spec ${Path.basename(path)}`,
      whenToUse: raw.whenToUse?.trim() || undefined,
      systemPrompt,
      tools,
      disallowedTools: excluded.length > 0 ? excluded : undefined,
      // kimi-cli: a spec delegates only to the subagents it declares (none when it declares none);
      // one that extends dsh's default agent without declaring any keeps its "every type".
      subagents: raw.subagents === undefined && raw.everyType === true ? undefined : refs.map((r) => r.name),
      model: raw.model?.trim() || undefined,
      override: false,
      mode: raw.mode ?? (description === "" ? "primary" : undefined),
      scope,
      source: path
    }
    return { result: { _tag: "Loaded", definition, warnings }, subagents: refs, prompts: loaded.prompts }
  })

/**
 * The subagents declared by the specs among `results` (one directory scan), loaded under their
 * declared names, and theirs in turn: a declared file that was scanned replaces its own
 * standalone entry (so each file stays one agent); one outside the scan is added. A file
 * declared twice keeps its first name.
 */
export const expandKimiSubagents = (
  results: ReadonlyArray<KimiSpecResult>,
  scope: AgentDefinition.AgentScope
): Effect.Effect<{
  readonly results: ReadonlyArray<AgentFileResult>
  readonly extra: ReadonlyArray<AgentFileResult>
  readonly warnings: ReadonlyArray<string>
  /** Prompt files (`system_prompt_path`) and the spec that read each. */
  readonly prompts: ReadonlyMap<string, string>
}> =>
  Effect.gen(function*() {
    const prompts = new Map<string, string>()
    const notePrompts = (r: KimiSpecResult) => {
      for (const p of r.prompts ?? []) if (!prompts.has(p)) prompts.set(p, r.result._tag === "Loaded" ? r.result.definition.source : r.result.path)
    }
    results.forEach(notePrompts)
    const pathOf = (r: AgentFileResult) => (r._tag === "Loaded" ? r.definition.source : r.path)
    const out = new Map<string, AgentFileResult>(results.map((r) => [pathOf(r.result), r.result]))
    const claimed = new Map<string, string>()
    const extra: Array<AgentFileResult> = []
    const warnings: Array<string> = []
    const declared = (r: KimiSpecResult) => (r.result._tag === "Loaded" ? r.subagents.map((ref) => ({ ref, by: pathOf(r.result) })) : [])
    const queue = results.flatMap(declared)
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { ref, by } = next
      const earlier = claimed.get(ref.path)
      if (earlier !== undefined) {
        if (earlier !== ref.name) warnings.push(`${by}: subagent "${ref.name}" is ${ref.path}, already loaded as "${earlier}"; it stays "${earlier}"`)
        continue
      }
      claimed.set(ref.path, ref.name)
      const loaded = yield* loadKimiAgentSpec(ref.path, scope, { name: ref.name, description: ref.description })
      notePrompts(loaded)
      queue.push(...declared(loaded))
      const result: AgentFileResult = loaded.result._tag === "Invalid"
        ? { ...loaded.result, reason: `subagent "${ref.name}" of ${by}: ${loaded.result.reason}` }
        : loaded.result
      if (out.has(ref.path)) out.set(ref.path, result)
      else extra.push(result)
    }
    return { results: [...out.values()], extra, warnings, prompts }
  })
