import { Effect, Schema } from "effect"
import picomatch from "picomatch"

/**
 * How calls that no rule settles are decided. `default`: read-only tools run, everything
 * else asks; `acceptEdits`: file edits inside the working directory run too; `plan`: nothing
 * that changes anything runs; `bypass`: everything runs except what a `deny` rule names.
 */
export const PermissionMode = Schema.Literals(["default", "acceptEdits", "plan", "bypass"])
export type PermissionMode = typeof PermissionMode.Type

/** Every mode, for flags and config checks. */
export const PERMISSION_MODES: ReadonlyArray<PermissionMode> = PermissionMode.literals

/** A mode name as a user may write it (`bypassPermissions` is Claude Code's spelling of `bypass`). */
export const parsePermissionMode = (text: string): PermissionMode | undefined =>
  text === "bypassPermissions" ? "bypass" : (PERMISSION_MODES as ReadonlyArray<string>).includes(text) ? text as PermissionMode : undefined

/**
 * One rule: `Tool` (every call of the tool; the name may be a glob such as `mcp__*`) or
 * `Tool(specifier)`: `Bash(git status*)` (a command pattern, `*` = anything), `Write(.env)` or
 * `Edit(src/**)` (a path pattern relative to the working directory, gitignore-like).
 */
export interface PermissionRule {
  /** The rule as written. */
  readonly text: string
  readonly tool: string
  readonly specifier?: string | undefined
}

/** A rule that cannot be read, naming it and what is wrong. */
export class PermissionRuleError extends Schema.TaggedError<PermissionRuleError>()("PermissionRuleError", {
  rule: Schema.String,
  message: Schema.String
}) {}

const TOOL_NAME = /^[A-Za-z0-9_.*?-]+$/

/** Reads a rule, synchronously: the rule, or the error naming it (for config decoders). */
export const readPermissionRule = (text: string): PermissionRule | PermissionRuleError => {
  const bad = (why: string) => new PermissionRuleError({ rule: text, message: `malformed permission rule ${JSON.stringify(text.trim())}: ${why}` })
  const trimmed = text.trim()
  if (trimmed === "") return bad("it is empty")
  const open = trimmed.indexOf("(")
  if (open < 0) {
    if (trimmed.includes(")")) return bad("a \")\" without \"(\"")
    return TOOL_NAME.test(trimmed) ? { text: trimmed, tool: trimmed } : bad("a tool name is letters, digits, _, -, . or a glob (* ?)")
  }
  const tool = trimmed.slice(0, open)
  if (tool === "" || !TOOL_NAME.test(tool)) return bad("write Tool or Tool(pattern), e.g. Bash(git status*)")
  if (!trimmed.endsWith(")")) return bad("the pattern must end with \")\"")
  const specifier = trimmed.slice(open + 1, -1)
  if (specifier.trim() === "") return bad("the pattern in () is empty (write just the tool name for every call)")
  return { text: trimmed, tool, specifier }
}

/** Parses a rule; a malformed one fails with a message that quotes it. */
export const parsePermissionRule = (text: string): Effect.Effect<PermissionRule, PermissionRuleError> => {
  const read = readPermissionRule(text)
  return read instanceof PermissionRuleError ? Effect.fail(read) : Effect.succeed(read)
}

const escapeRegExp = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, "\\$&")

/** `*` = any run of characters, `?` = one character; everything else literal. */
const wildcard = (pattern: string): RegExp =>
  new RegExp(`^${pattern.split("").map((c) => (c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : escapeRegExp(c))).join("")}$`)

/** Compiles a rule into predicates over a tool name and over one specifier form. */
export interface CompiledRule {
  readonly rule: PermissionRule
  readonly matchesTool: (tool: string) => boolean
  /** Whether the rule covers one form of the call (always true for a rule without a pattern). */
  readonly matchesForm: (form: string, kind: "path" | "text") => boolean
}

export const compileRule = (rule: PermissionRule): CompiledRule => {
  const toolRe = /[*?]/.test(rule.tool) ? wildcard(rule.tool) : undefined
  const matchesTool = toolRe === undefined ? (tool: string) => tool === rule.tool : (tool: string) => toolRe.test(tool)
  const spec = rule.specifier
  if (spec === undefined || spec === "*" || spec === "**") return { rule, matchesTool, matchesForm: () => true }
  // Claude Code's `Bash(npm run test:*)`: the prefix, then nothing or a space and anything.
  const text = spec.endsWith(":*") ? new RegExp(`${wildcard(spec.slice(0, -2)).source.slice(0, -1)}(?:\\s[\\s\\S]*)?$`) : wildcard(spec)
  const path = picomatch(spec, { dot: true, basename: !spec.includes("/") })
  return { rule, matchesTool, matchesForm: (form, kind) => (kind === "path" ? path(form) : text.test(form)) }
}
