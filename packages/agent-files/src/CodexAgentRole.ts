import { Effect } from "effect"
import { type AgentDefinition, AgentName } from "@dsh/agent"
import { type AgentFileResult, tooLarge } from "./AgentFile.ts"
import { MAX_AGENT_FILE_BYTES } from "./AgentFileParts.ts"
import { decodeUtf8, normalizeText } from "./internal/Frontmatter.ts"
import * as Fs from "./internal/Fs.ts"
import { toolsDeniedByPermission } from "./ToolNames.ts"

/**
 * Codex's custom agents (`.codex/agents/<name>.toml`, project or `~/.codex`): one TOML file per
 * role with `name`, `description` and `developer_instructions` (the role's prompt), and the
 * config keys a role may set for its thread (`model`, `model_reasoning_effort`, `sandbox_mode`,
 * `mcp_servers`, `nickname_candidates`, …). They become definitions like Markdown files do; what
 * dsh has no counterpart for is a note, never a refusal.
 */

/** `.toml` files in an agent directory are Codex roles. */
export const isCodexRolePath = (path: string): boolean => /\.toml$/i.test(path)

/** Keys Codex reads for display or for its own runtime only: accepted without a note. */
const QUIET_KEYS = new Set(["name", "description", "developer_instructions", "model", "sandbox_mode", "nickname_candidates"])

const invalid = (path: string, reason: string): AgentFileResult => ({ _tag: "Invalid", path, reason })

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** The role's file name without `.toml`, for a role without `name`. */
const baseName = (path: string): string => (path.split(/[\\/]/).pop() ?? path).replace(/\.toml$/i, "")

/** A parsed role file (a TOML table) as a definition, or the reason it is not one. */
export const codexRoleFromToml = (raw: Readonly<Record<string, unknown>>, path: string, scope: AgentDefinition.AgentScope): AgentFileResult => {
  const warnings: Array<string> = []
  const written = text(raw.name) ?? baseName(path)
  let name = written
  if (AgentName.validateAgentName(written) !== undefined) {
    const kebab = AgentName.suggestAgentName(written)
    if (kebab === undefined || AgentName.validateAgentName(kebab) !== undefined) return invalid(path, `name: ${AgentName.validateAgentName(written)}`)
    // Codex roles are usually snake_case (`security_auditor`); dsh types are kebab-case.
    warnings.push(`name "${written}" is not kebab-case; dsh names this agent "${kebab}" (delegate to it by that name)`)
    name = kebab
  }
  const description = text(raw.description)
  if (description === undefined) return invalid(path, "missing required field \"description\" (a Codex agent role needs name, description and developer_instructions)")
  const instructions = typeof raw.developer_instructions === "string" ? normalizeText(raw.developer_instructions).trim() : undefined
  if (instructions === undefined || instructions === "") {
    return invalid(path, "missing required field \"developer_instructions\" (the role's prompt); a .toml file in an agent directory is read as a Codex agent role")
  }
  if (instructions.length > AgentName.MAX_SYSTEM_PROMPT_CHARS) {
    return invalid(path, `developer_instructions is ${instructions.length} characters, over the ${AgentName.MAX_SYSTEM_PROMPT_CHARS}-character limit`)
  }
  const model = text(raw.model)
  if (raw.model !== undefined && model === undefined) warnings.push(`model: ${JSON.stringify(raw.model)} is not one model name; ignored`)
  const sandbox = text(raw.sandbox_mode)
  // Codex's read-only sandbox lets the role read and run commands but write nothing: dsh's
  // nearest is the role without its file-writing tools (Bash still runs under dsh's sandbox).
  const disallowed = sandbox === "read-only" ? toolsDeniedByPermission("edit") : []
  if (sandbox !== undefined && !["read-only", "workspace-write", "danger-full-access"].includes(sandbox)) {
    warnings.push(`sandbox_mode: "${sandbox}" is not read-only, workspace-write or danger-full-access; ignored`)
  }
  const ignored = Object.keys(raw).filter((k) => !QUIET_KEYS.has(k)).sort()
  if (ignored.length > 0) warnings.push(`Codex settings dsh does not apply to agents ignored: ${ignored.join(", ")}`)
  const definition: AgentDefinition.AgentDefinition = {
    name,
    description,
    systemPrompt: instructions,
    model,
    ...(disallowed.length === 0 ? {} : { disallowedTools: disallowed }),
    override: false,
    scope,
    source: path
  }
  return { _tag: "Loaded", definition, warnings }
}

/** Parses TOML text (smol-toml, loaded only when a role file is read) into a role. */
export const parseCodexRole = (source: string, path: string, scope: AgentDefinition.AgentScope): Effect.Effect<AgentFileResult> =>
  Effect.gen(function*() {
    const toml = yield* Effect.promise(() => import("smol-toml"))
    const parsed = yield* Effect.try({ try: () => toml.parse(source) as Record<string, unknown>, catch: (e) => e instanceof Error ? e.message : String(e) }).pipe(Effect.result)
    if (parsed._tag === "Failure") return invalid(path, `malformed TOML (a Codex agent role): ${parsed.failure.split("\n")[0]}`)
    return codexRoleFromToml(parsed.success, path, scope)
  })

/** Reads one role file: the size is checked before reading, as for Markdown files. */
export const loadCodexRole = (path: string, scope: AgentDefinition.AgentScope): Effect.Effect<AgentFileResult> =>
  Effect.gen(function*() {
    const read = yield* Fs.readBounded(path, MAX_AGENT_FILE_BYTES).pipe(Effect.result)
    if (read._tag === "Failure") return invalid(path, `cannot read: ${read.failure.message}`)
    if (read.success.truncated) return invalid(path, tooLarge(MAX_AGENT_FILE_BYTES + 1))
    const decoded = decodeUtf8(read.success.bytes)
    if (decoded === undefined || decoded.includes("\u0000")) return invalid(path, "binary file, not a TOML agent role")
    return yield* parseCodexRole(decoded, path, scope)
  })
