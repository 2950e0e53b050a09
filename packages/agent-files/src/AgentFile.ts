import * as Path from "node:path"
import { type AgentDefinition, AgentName } from "@dsh/agent"
import { decodeUtf8, normalizeText, parseFrontmatter, splitFrontmatter } from "./internal/Frontmatter.ts"
import { type InvalidAgentFile, MAX_AGENT_FILE_BYTES, type ParseAgentFileOptions } from "./AgentFileParts.ts"
import { isRemoteKind, remoteAgentFile } from "./RemoteAgentFile.ts"

export type { InvalidAgentFile, ParseAgentFileOptions } from "./AgentFileParts.ts"
import { readNameList, toolsDeniedByPermission } from "./ToolNames.ts"

/**
 * Parsing one agent file: Markdown with YAML frontmatter (dsh, Claude Code, OpenCode, Gemini CLI
 * and Copilot flavours). Plain functions that never throw: a file either loads, possibly with
 * warnings, or is invalid with a one-line reason.
 */

export interface LoadedAgentFile {
  readonly _tag: "Loaded"
  readonly definition: AgentDefinition.AgentDefinition
  /** Things that were repaired or ignored; the caller prefixes them with the path. */
  readonly warnings: ReadonlyArray<string>
}

export type AgentFileResult = LoadedAgentFile | InvalidAgentFile

const MODES: ReadonlyArray<string> = ["primary", "subagent", "all"]

/** The agent name a file gets without a `name` field: `review.md` → `review`, `x.agent.md` → `x`. */
export const nameFromPath = (path: string): string => Path.basename(path).replace(/(?:\.agent)?\.md$/i, "")

const invalid = (path: string, reason: string): InvalidAgentFile => ({ _tag: "Invalid", path, reason })

/**
 * Checks raw bytes before decoding: size, NUL bytes and UTF-8 validity, so a binary file with
 * a `.md` name is reported as such instead of as garbled YAML.
 */
export const parseAgentFileBytes = (
  bytes: Uint8Array,
  path: string,
  options: ParseAgentFileOptions = {}
): AgentFileResult => {
  if (bytes.byteLength > MAX_AGENT_FILE_BYTES) return invalid(path, tooLarge(bytes.byteLength))
  if (bytes.includes(0)) return invalid(path, "binary file (contains NUL bytes), not a Markdown agent file")
  const text = decodeUtf8(bytes)
  if (text === undefined) return invalid(path, "binary file (not valid UTF-8), not a Markdown agent file")
  return parseAgentFile(text, path, options)
}

export const tooLarge = (bytes: number): string =>
  `file is ${bytes} bytes, over the ${MAX_AGENT_FILE_BYTES}-byte limit for agent files`

/** Parses the text of an agent file; `path` names the source and supplies the default name. */
export const parseAgentFile = (text: string, path: string, options: ParseAgentFileOptions = {}): AgentFileResult => {
  const bytes = Buffer.byteLength(text, "utf8")
  if (bytes > MAX_AGENT_FILE_BYTES) return invalid(path, tooLarge(bytes))
  if (text.includes("\u0000")) return invalid(path, "binary file (contains NUL bytes), not a Markdown agent file")
  const split = splitFrontmatter(normalizeText(text))
  if (split._tag === "NoFrontmatter") return invalid(path, split.reason)
  const frontmatter = parseFrontmatter(split.frontmatter)
  if (frontmatter._tag === "Malformed") return invalid(path, frontmatter.reason)
  const warnings = [...split.warnings, ...frontmatter.warnings]
  const fm = frontmatter.data

  const named = readName(fm.name, path)
  if ("reason" in named) return invalid(path, named.reason)
  const name = named.name
  if (named.note !== undefined) warnings.push(named.note)
  // Gemini CLI's remote agents are A2A endpoints, not prompts: the caller decides (see RemoteAgentFile).
  if (isRemoteKind(fm.kind)) return remoteAgentFile(fm, name, path, options)

  const description = readText(fm.description)
  if (description === undefined) {
    const present = fm.description !== undefined && fm.description !== null && typeof fm.description !== "string"
    return invalid(path, present ? "description: must be text" : "missing required field \"description\"")
  }

  const whenToUse = readText(fm.whenToUse ?? fm.when_to_use)
  const override = readOverride(fm.override, warnings)

  // Kiro's `allowedTools` and skill-style `allowed-tools` restrict like `tools` does.
  const toolsValue = fm.tools ?? fm.allowedTools ?? fm["allowed-tools"]
  const tools = readNameList("tools", toolsValue, { mapTools: true, star: "all" })
  const disallowed = readNameList("disallowedTools", fm.disallowedTools, { mapTools: true, star: "ignored" })
  const subagents = readNameList("subagents", fm.subagents, { mapTools: false, star: "all" })
  warnings.push(...tools.warnings, ...disallowed.warnings, ...subagents.warnings)
  const deniedByPermission = readPermission(fm.permission)
  const disallowedNames = [...new Set([...(disallowed.names ?? []), ...tools.denied, ...deniedByPermission])]

  const model = readModel(fm.model, warnings)
  const isolation = readIsolation(fm.isolation, warnings)
  const subagentDefaults = readSubagentDefaults(fm.subagentDefaults, warnings)
  const mode = typeof fm.mode === "string" && MODES.includes(fm.mode) ? fm.mode as AgentDefinition.AgentMode : undefined

  if (split.body.length > AgentName.MAX_SYSTEM_PROMPT_CHARS) {
    return invalid(path, `system prompt is ${split.body.length} characters, over the ${AgentName.MAX_SYSTEM_PROMPT_CHARS}-character limit`)
  }
  if (split.body.trim() === "") warnings.push("the body (the system prompt) is empty")

  const definition: AgentDefinition.AgentDefinition = {
    name,
    description,
    whenToUse,
    systemPrompt: split.body,
    tools: tools.names,
    disallowedTools: disallowedNames.length > 0 ? disallowedNames : undefined,
    subagents: subagents.names,
    model,
    ...(isolation === undefined ? {} : { isolation }),
    ...(typeof fm.hooks === "object" && fm.hooks !== null && !Array.isArray(fm.hooks) ? { hooks: fm.hooks as Record<string, unknown> } : {}),
    ...(subagentDefaults === undefined ? {} : { subagentDefaults }),
    override,
    mode,
    scope: options.scope ?? "explicit",
    source: path
  }
  return { _tag: "Loaded", definition, warnings }
}

/**
 * The agent's name: `name`, else the file name. Tools that load these files accept names of any
 * case (OpenCode takes the file name, Copilot a display name, Gemini CLI snake_case), so a name
 * that is not kebab-case loads under its kebab-case form, with a note saying so; only a name
 * with no such form is refused.
 */
const readName = (value: unknown, path: string): { readonly name: string; readonly note?: string } | { readonly reason: string } => {
  const given = typeof value === "string" || typeof value === "number" ? String(value).trim() : undefined
  if (value !== undefined && value !== null && given === undefined) return { reason: "name: must be a string" }
  const written = given !== undefined && given !== "" ? given : nameFromPath(path)
  const problem = AgentName.validateAgentName(written)
  if (problem === undefined) return { name: written }
  const kebab = AgentName.suggestAgentName(written)
  if (kebab !== undefined && AgentName.validateAgentName(kebab) === undefined) {
    const what = given ? `name "${written}"` : `the file name's "${written}" (no name field)`
    return { name: kebab, note: `${what} is not kebab-case; dsh names this agent "${kebab}" (delegate to it by that name)` }
  }
  return { reason: given ? `name: ${problem}` : `no name field, and the file name gives no valid name: ${problem}` }
}

const readText = (value: unknown): string | undefined => {
  const text = typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
  return text !== undefined && text.trim() !== "" ? text.trim() : undefined
}

const readOverride = (value: unknown, warnings: Array<string>): boolean => {
  if (value === undefined || value === null) return false
  if (typeof value === "boolean") return value
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true"
  warnings.push(`override: ${JSON.stringify(value)} is not true or false; treated as false`)
  return false
}

/**
 * The model as written (`openai:gpt-4.1`, `sonnet`, `claude-haiku-4-5`, `anthropic/…`,
 * `inherit`): which adapter serves it is the model registry's business, when the agent runs
 * (and when agents are listed). Only a value that is not one name is dropped here.
 */
const readModel = (value: unknown, warnings: Array<string>): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "string" && value.trim() !== "") return value.trim()
  warnings.push(`model: ${JSON.stringify(value)} is not one model name; ignored, the caller's model is used`)
  return undefined
}

/** `isolation: worktree` (Claude Code's field); anything else is ignored with a warning. */
const readIsolation = (value: unknown, warnings: Array<string>): "worktree" | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "string" && value.trim().toLowerCase() === "worktree") return "worktree"
  warnings.push(`isolation: ${JSON.stringify(value)} is not "worktree"; ignored, the child runs in its parent's directory`)
  return undefined
}

/**
 * `subagentDefaults: {model, tools, disallowedTools}`: a mapping; its lists are written like
 * `tools`. Not `subagents` (that is the list of types this agent may delegate to).
 */
const readSubagentDefaults = (value: unknown, warnings: Array<string>): AgentDefinition.SubagentDefaults | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== "object" || Array.isArray(value)) {
    warnings.push("subagentDefaults: must be a mapping of model, tools, disallowedTools; ignored")
    return undefined
  }
  const raw = value as Record<string, unknown>
  for (const key of Object.keys(raw)) {
    if (!["model", "tools", "disallowedTools"].includes(key)) warnings.push(`subagentDefaults: unknown field "${key}" ignored`)
  }
  const model = readModel(raw.model, [])
  if (raw.model !== undefined && model === undefined) warnings.push(`subagentDefaults.model: ${JSON.stringify(raw.model)} is not one model name; ignored`)
  const tools = readNameList("subagentDefaults.tools", raw.tools, { mapTools: true, star: "all" })
  const disallowed = readNameList("subagentDefaults.disallowedTools", raw.disallowedTools, { mapTools: true, star: "ignored" })
  warnings.push(...tools.warnings, ...disallowed.warnings)
  const deny = [...new Set([...(disallowed.names ?? []), ...tools.denied])]
  const result: AgentDefinition.SubagentDefaults = {
    ...(model === undefined ? {} : { model }),
    ...(tools.names === undefined ? {} : { tools: tools.names }),
    ...(deny.length === 0 ? {} : { disallowedTools: deny })
  }
  return Object.keys(result).length === 0 ? undefined : result
}

/** OpenCode `permission: {edit: deny, bash: deny}` → the dsh tools those denials remove. */
const readPermission = (value: unknown): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return []
  return Object.entries(value as Record<string, unknown>).flatMap(([key, rule]) =>
    rule === "deny" ? toolsDeniedByPermission(key) : []
  )
}
