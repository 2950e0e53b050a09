/**
 * Tool names in agent files written for other harnesses, and how they map onto dsh's tools.
 * Only unambiguous spellings are mapped; anything else is kept as written, so a name no tool
 * has is reported by the policy warnings instead of silently widening or narrowing access.
 */

import { BuiltinToolNames } from "@dsh/tools"
export const BUILTIN_TOOL_NAMES = BuiltinToolNames.BUILTIN_TOOL_NAMES

/** The model-facing delegation tool (`@dsh/tool-subagent`). */
export const SUBAGENT_TOOL_NAME = "subagent"

/** The model-facing fan-out tool (`@dsh/tool-subagent`). */
export const SWARM_TOOL_NAME = "swarm"

const VENDOR_TOOL_NAMES: Readonly<Record<string, ReadonlyArray<string>>> = {
  // Claude Code
  Task: [SUBAGENT_TOOL_NAME],
  Agent: [SUBAGENT_TOOL_NAME],
  MultiEdit: ["Edit"],
  LS: ["Glob"],
  KillShell: ["BashStop"],
  KillBash: ["BashStop"],
  exit_plan_mode: ["ExitPlanMode"],
  todowrite: ["TodoWrite"],
  skill: ["Skill"],
  // OpenCode, pi, Kiro and GitHub Copilot (lowercase ids)
  read: ["Read"],
  write: ["Write"],
  edit: ["Edit"],
  patch: ["Edit"],
  bash: ["Bash"],
  shell: ["Bash"],
  grep: ["Grep"],
  glob: ["Glob"],
  list: ["Glob"],
  ls: ["Glob"],
  find: ["Glob"],
  task: [SUBAGENT_TOOL_NAME],
  // Kimi Code / kimi-cli (class names; `kimi_cli.tools.file:ReadFile` is read as `ReadFile`)
  Shell: ["Bash"],
  ReadFile: ["Read"],
  WriteFile: ["Write"],
  StrReplaceFile: ["Edit"],
  PatchFile: ["Edit"],
  AgentSwarm: [SWARM_TOOL_NAME],
  SetTodoList: ["TodoWrite"],
  CreateSubagent: ["create_subagent"],
  // Gemini CLI
  read_file: ["Read"],
  read_many_files: ["Read"],
  write_file: ["Write"],
  replace: ["Edit"],
  run_shell_command: ["Bash"],
  grep_search: ["Grep"],
  search_file_content: ["Grep"],
  list_directory: ["Glob"]
}

/** dsh's name(s) for a tool name from another harness; unknown names come back unchanged. */
export const mapToolName = (name: string): ReadonlyArray<string> =>
  Object.hasOwn(VENDOR_TOOL_NAMES, name) ? VENDOR_TOOL_NAMES[name]! : [name]

/** OpenCode `permission` keys whose `deny` removes dsh tools (`edit` covers every file write). */
const PERMISSION_TOOLS: Readonly<Record<string, ReadonlyArray<string>>> = {
  edit: ["Edit", "Write"],
  write: ["Write"],
  bash: ["Bash"],
  read: ["Read"],
  grep: ["Grep"],
  glob: ["Glob"],
  list: ["Glob"],
  task: [SUBAGENT_TOOL_NAME]
}

export const toolsDeniedByPermission = (key: string): ReadonlyArray<string> =>
  Object.hasOwn(PERMISSION_TOOLS, key) ? PERMISSION_TOOLS[key]! : []

export interface NameList {
  /** `undefined` means "all"; `[]` means "none". */
  readonly names: ReadonlyArray<string> | undefined
  /** From an OpenCode boolean map: entries set to `false`, to add to `disallowedTools`. */
  readonly denied: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

type GroupedEntry = { readonly native?: unknown; readonly mcp?: unknown }

const isGroupedEntry = (item: unknown): item is GroupedEntry =>
  typeof item === "object" && item !== null && !Array.isArray(item) &&
  Object.keys(item).length > 0 && Object.keys(item).every((k) => k === "native" || k === "mcp")

/**
 * Gemini-template style entries: `{native: [read_file]}` and `{mcp: [server | {name, tools}]}`,
 * flattened to tool names and `mcp__server__tool` patterns instead of being dropped (which
 * would leave the agent with no tools at all).
 */
const flattenGroupedEntry = (entry: GroupedEntry): Array<string> => {
  const native = Array.isArray(entry.native) ? entry.native.filter((n): n is string => typeof n === "string") : []
  const mcp = Array.isArray(entry.mcp) ? entry.mcp : []
  const servers = mcp.flatMap((server: unknown): Array<string> => {
    if (typeof server === "string") return [`mcp__${server}__*`]
    if (typeof server !== "object" || server === null) return []
    const { name, tools } = server as { name?: unknown; tools?: unknown }
    if (typeof name !== "string") return []
    const listed = Array.isArray(tools) ? tools.filter((t): t is string => typeof t === "string") : []
    return listed.length > 0 ? listed.map((t) => `mcp__${name}__${t}`) : [`mcp__${name}__*`]
  })
  return [...native, ...servers]
}

const dedupe = (names: ReadonlyArray<string>): Array<string> => [...new Set(names)]

/**
 * Reads a `tools`/`disallowedTools`/`subagents` value: a YAML list, a comma-separated string,
 * a lone `*` (all → `undefined`), `[]` (none) or an OpenCode map of booleans. For an OpenCode
 * map the `true` keys become the allow-list and the `false` keys are returned as `denied`; a map
 * with no `true` key keeps every other tool, as OpenCode does.
 */
export const readNameList = (
  field: string,
  value: unknown,
  options: { readonly mapTools: boolean; readonly star: "all" | "ignored" }
): NameList => {
  const warnings: Array<string> = []
  const map = (names: ReadonlyArray<string>) => dedupe(options.mapTools ? names.flatMap(mapToolName) : names)
  const finish = (raw: ReadonlyArray<string>, denied: ReadonlyArray<string> = []): NameList => {
    const names = raw.map((n) => n.trim()).filter((n) => n !== "")
    if (names.includes("*")) {
      if (options.star === "all") return { names: undefined, denied: map(denied), warnings }
      warnings.push(`${field}: a lone "*" matches nothing here and is ignored`)
      return { names: map(names.filter((n) => n !== "*")), denied: map(denied), warnings }
    }
    return { names: map(names), denied: map(denied), warnings }
  }
  if (value === undefined || value === null) return { names: undefined, denied: [], warnings }
  if (typeof value === "string") {
    return value.trim() === "" ? { names: undefined, denied: [], warnings } : finish(value.split(","))
  }
  if (Array.isArray(value)) {
    const names: Array<string> = []
    for (const item of value) {
      if (typeof item === "string" || typeof item === "number") names.push(String(item))
      else if (isGroupedEntry(item)) names.push(...flattenGroupedEntry(item))
      else warnings.push(`${field}: entry ${JSON.stringify(item)} is not a name and is ignored`)
    }
    return finish(names)
  }
  if (typeof value === "object") {
    const allowed: Array<string> = []
    const denied: Array<string> = []
    for (const [key, flag] of Object.entries(value as Record<string, unknown>)) {
      if (flag === true) allowed.push(key)
      else if (flag === false) denied.push(key)
      else warnings.push(`${field}: "${key}" is not set to true or false and is ignored`)
    }
    if (allowed.length === 0) {
      const result = finish([], denied)
      return { ...result, names: undefined }
    }
    return finish(allowed, denied)
  }
  warnings.push(`${field}: ${JSON.stringify(value)} is not a list of names and is ignored`)
  return { names: undefined, denied: [], warnings }
}
